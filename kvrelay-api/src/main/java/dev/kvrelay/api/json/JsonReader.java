package dev.kvrelay.api.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/** Not thread-safe: confined to one {@link Json#parse} call; a recursive-descent RFC 8259 reader. */
final class JsonReader {
  private final String s;
  private final int maxDepth;
  private int pos;
  private int depth;

  JsonReader(String s, JsonLimits limits) {
    this.s = s;
    this.maxDepth = limits.maxDepth();
  }

  JsonValue readDocument() throws JsonException {
    skipWhitespace();
    JsonValue value = readValue();
    skipWhitespace();
    if (pos < s.length()) {
      throw error(JsonException.Reason.TRAILING_CONTENT, pos, "unexpected content after the JSON value");
    }
    return value;
  }

  private JsonValue readValue() throws JsonException {
    if (pos >= s.length()) {
      throw error(JsonException.Reason.UNEXPECTED_END, pos, "expected a value");
    }
    char c = s.charAt(pos);
    switch (c) {
      case '{':
        return readObject();
      case '[':
        return readArray();
      case '"':
        return new JsonString(readString());
      case 't':
        expectLiteral("true");
        return JsonBoolean.TRUE;
      case 'f':
        expectLiteral("false");
        return JsonBoolean.FALSE;
      case 'n':
        expectLiteral("null");
        return JsonNull.INSTANCE;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return readNumber();
        }
        throw error(JsonException.Reason.SYNTAX, pos, "unexpected character " + describe(c) + ", expected a value");
    }
  }

  private JsonObject readObject() throws JsonException {
    enter();
    pos++;
    LinkedHashMap<String, JsonValue> members = new LinkedHashMap<>();
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      depth--;
      return new JsonObject(members);
    }
    while (true) {
      if (pos >= s.length()) {
        throw error(JsonException.Reason.UNEXPECTED_END, pos, "unterminated object");
      }
      if (s.charAt(pos) != '"') {
        throw error(JsonException.Reason.SYNTAX, pos, "expected a member name, got " + describe(s.charAt(pos)));
      }
      int keyOffset = pos;
      String key = readString();
      skipWhitespace();
      expect(':', "':' after a member name");
      skipWhitespace();
      JsonValue value = readValue();
      if (members.putIfAbsent(key, value) != null) {
        throw error(JsonException.Reason.DUPLICATE_KEY, keyOffset, "duplicate member name \"" + abbreviate(key) + "\"");
      }
      skipWhitespace();
      if (pos >= s.length()) {
        throw error(JsonException.Reason.UNEXPECTED_END, pos, "unterminated object");
      }
      char c = s.charAt(pos++);
      if (c == '}') {
        depth--;
        return new JsonObject(members);
      }
      if (c != ',') {
        throw error(JsonException.Reason.SYNTAX, pos - 1, "expected ',' or '}' in an object, got " + describe(c));
      }
      skipWhitespace();
    }
  }

  private JsonArray readArray() throws JsonException {
    enter();
    pos++;
    List<JsonValue> elements = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      depth--;
      return new JsonArray(elements);
    }
    while (true) {
      elements.add(readValue());
      skipWhitespace();
      if (pos >= s.length()) {
        throw error(JsonException.Reason.UNEXPECTED_END, pos, "unterminated array");
      }
      char c = s.charAt(pos++);
      if (c == ']') {
        depth--;
        return new JsonArray(elements);
      }
      if (c != ',') {
        throw error(JsonException.Reason.SYNTAX, pos - 1, "expected ',' or ']' in an array, got " + describe(c));
      }
      skipWhitespace();
    }
  }

  private String readString() throws JsonException {
    int start = pos;
    pos++;
    StringBuilder out = null;
    int runStart = pos;
    while (true) {
      if (pos >= s.length()) {
        throw error(JsonException.Reason.UNEXPECTED_END, start, "unterminated string");
      }
      char c = s.charAt(pos);
      if (c == '"') {
        String result = out == null ? s.substring(runStart, pos) : out.append(s, runStart, pos).toString();
        pos++;
        return result;
      }
      if (c < 0x20) {
        throw error(JsonException.Reason.CONTROL_CHARACTER, pos, "unescaped control character " + describe(c) + " in a string");
      }
      if (Character.isHighSurrogate(c)) {
        if (pos + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(pos + 1))) {
          throw error(JsonException.Reason.UNPAIRED_SURROGATE, pos, "unpaired surrogate in a string");
        }
        pos += 2;
        continue;
      }
      if (Character.isLowSurrogate(c)) {
        throw error(JsonException.Reason.UNPAIRED_SURROGATE, pos, "unpaired surrogate in a string");
      }
      if (c != '\\') {
        pos++;
        continue;
      }
      if (out == null) {
        out = new StringBuilder();
      }
      out.append(s, runStart, pos);
      readEscape(out);
      runStart = pos;
    }
  }

  /** Reads the escape at {@code pos} (a backslash) into {@code out}. */
  private void readEscape(StringBuilder out) throws JsonException {
    int at = pos;
    if (pos + 1 >= s.length()) {
      throw error(JsonException.Reason.UNEXPECTED_END, at, "unterminated escape");
    }
    char e = s.charAt(pos + 1);
    pos += 2;
    switch (e) {
      case '"':
        out.append('"');
        return;
      case '\\':
        out.append('\\');
        return;
      case '/':
        out.append('/');
        return;
      case 'b':
        out.append('\b');
        return;
      case 'f':
        out.append('\f');
        return;
      case 'n':
        out.append('\n');
        return;
      case 'r':
        out.append('\r');
        return;
      case 't':
        out.append('\t');
        return;
      case 'u':
        char unit = readHex4(at);
        if (Character.isLowSurrogate(unit)) {
          throw error(JsonException.Reason.UNPAIRED_SURROGATE, at, "escaped low surrogate without a high surrogate");
        }
        if (Character.isHighSurrogate(unit)) {
          int second = pos;
          if (pos + 1 >= s.length() || s.charAt(pos) != '\\' || s.charAt(pos + 1) != 'u') {
            throw error(JsonException.Reason.UNPAIRED_SURROGATE, at, "escaped high surrogate without a low surrogate");
          }
          pos += 2;
          char low = readHex4(second);
          if (!Character.isLowSurrogate(low)) {
            throw error(JsonException.Reason.UNPAIRED_SURROGATE, at, "escaped high surrogate without a low surrogate");
          }
          out.append(unit).append(low);
          return;
        }
        out.append(unit);
        return;
      default:
        throw error(JsonException.Reason.INVALID_ESCAPE, at, "invalid escape \\" + describe(e));
    }
  }

  private char readHex4(int escapeStart) throws JsonException {
    int v = 0;
    for (int i = 0; i < 4; i++) {
      if (pos + i >= s.length()) {
        throw error(JsonException.Reason.UNEXPECTED_END, escapeStart, "truncated \\u escape");
      }
      char c = s.charAt(pos + i);
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        throw error(JsonException.Reason.INVALID_ESCAPE, escapeStart, "\\u escape needs four hex digits");
      }
      v = (v << 4) | d;
    }
    pos += 4;
    return (char) v;
  }

  private JsonNumber readNumber() throws JsonException {
    int start = pos;
    int end = JsonNumber.scan(s, start);
    if (end < 0) {
      int at = -end - 1;
      if (at >= s.length()) {
        throw error(JsonException.Reason.UNEXPECTED_END, at, "truncated number");
      }
      throw error(JsonException.Reason.INVALID_NUMBER, at, "malformed number");
    }
    pos = end;
    return new JsonNumber(s.substring(start, end));
  }

  private void expectLiteral(String literal) throws JsonException {
    if (!s.startsWith(literal, pos)) {
      for (int i = 0; i < literal.length(); i++) {
        if (pos + i >= s.length()) {
          throw error(JsonException.Reason.UNEXPECTED_END, pos + i, "truncated literal '" + literal + "'");
        }
        if (s.charAt(pos + i) != literal.charAt(i)) {
          throw error(JsonException.Reason.SYNTAX, pos + i, "expected '" + literal + "'");
        }
      }
    }
    pos += literal.length();
  }

  private void expect(char c, String what) throws JsonException {
    if (pos >= s.length()) {
      throw error(JsonException.Reason.UNEXPECTED_END, pos, "expected " + what);
    }
    if (s.charAt(pos) != c) {
      throw error(JsonException.Reason.SYNTAX, pos, "expected " + what + ", got " + describe(s.charAt(pos)));
    }
    pos++;
  }

  private void enter() throws JsonException {
    if (++depth > maxDepth) {
      throw error(JsonException.Reason.DEPTH_LIMIT, pos, "nesting deeper than " + maxDepth);
    }
  }

  private int peek() {
    return pos < s.length() ? s.charAt(pos) : -1;
  }

  private void skipWhitespace() {
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private static String describe(char c) {
    if (c >= 0x20 && c < 0x7F) {
      return "'" + c + "'";
    }
    return String.format("U+%04X", (int) c);
  }

  private static String abbreviate(String key) {
    return key.length() <= 64 ? key : key.substring(0, 64) + "…";
  }

  private static JsonException error(JsonException.Reason reason, int offset, String message) {
    return JsonException.of(reason, offset, message);
  }
}
