package dev.kvrelay.api.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Not thread-safe: confined to one {@link Json#parse} call. Builds a {@link JsonValue} tree from
 * jackson-core's streaming {@link JsonParser} (strict RFC 8259: Jackson's defaults, no comments, no
 * non-numeric numbers, no leading zeros, no unquoted or single-quoted names), and adds what Jackson leaves
 * out: duplicate member names and unpaired surrogates are rejected, exactly one top-level value is allowed,
 * and every failure becomes a {@link JsonException} with a {@link JsonException.Reason} and a char offset.
 * Nesting depth is Jackson's {@link StreamReadConstraints#getMaxNestingDepth()} set to {@link
 * JsonLimits#maxDepth()}.
 */
final class JsonReader {
  private static final JsonFactory DEFAULT_FACTORY = factory(JsonLimits.DEFAULT);

  private final String s;
  private final JsonFactory factory;

  JsonReader(String s, JsonLimits limits) {
    this.s = s;
    this.factory = limits.equals(JsonLimits.DEFAULT) ? DEFAULT_FACTORY : factory(limits);
  }

  private static JsonFactory factory(JsonLimits limits) {
    return JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxNestingDepth(limits.maxDepth())
            .maxNumberLength(limits.maxLength())
            .maxStringLength(limits.maxLength())
            .maxNameLength(limits.maxLength())
            .build())
        // Untrusted names: no interning into the JVM string table, no shared symbol canonicalization.
        .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
        .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
        .build();
  }

  JsonValue readDocument() throws JsonException {
    // A raw unpaired surrogate is a defect wherever it is; Jackson passes it through inside strings (and
    // pairs a raw high half with an escaped low one), so the first defect of either kind is reported.
    int rawSurrogate = JsonString.firstUnpairedSurrogate(s);
    JsonValue value;
    try {
      value = parse();
    } catch (JsonException e) {
      if (rawSurrogate >= 0 && e.offset() > rawSurrogate) {
        throw unpairedSurrogate(rawSurrogate);
      }
      throw e;
    }
    if (rawSurrogate >= 0) {
      throw unpairedSurrogate(rawSurrogate);
    }
    return value;
  }

  private static JsonException unpairedSurrogate(int at) {
    return JsonException.of(JsonException.Reason.UNPAIRED_SURROGATE, at, "unpaired surrogate in a string");
  }

  private JsonValue parse() throws JsonException {
    if (!s.isEmpty() && s.charAt(0) == '\uFEFF') {
      throw JsonException.of(JsonException.Reason.SYNTAX, 0, "unexpected byte order mark, expected a value");
    }
    try (JsonParser p = factory.createParser(s)) {
      JsonValue value;
      try {
        value = readValue(p, p.nextToken());
      } catch (JsonProcessingException e) {
        throw translate(e, p);
      }
      int valueEnd = (int) offset(p.currentLocation());
      JsonToken after;
      try {
        after = p.nextToken();
      } catch (JsonProcessingException e) {
        throw JsonException.of(JsonException.Reason.TRAILING_CONTENT, skipWhitespace(valueEnd),
            "unexpected content after the JSON value");
      }
      if (after != null) {
        throw JsonException.of(JsonException.Reason.TRAILING_CONTENT, offset(p.currentTokenLocation()),
            "unexpected content after the JSON value");
      }
      return value;
    } catch (IOException e) {
      // Only a JsonProcessingException can come from a String source; kept typed all the same.
      throw JsonException.of(JsonException.Reason.SYNTAX, 0, "unreadable JSON: " + e.getMessage());
    }
  }

  private JsonValue readValue(JsonParser p, JsonToken t) throws IOException, JsonException {
    if (t == null) {
      throw JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), "expected a value");
    }
    return switch (t) {
      case START_OBJECT -> readObject(p);
      case START_ARRAY -> readArray(p);
      case VALUE_STRING -> new JsonString(checkedText(p));
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> number(p);
      case VALUE_TRUE -> JsonBoolean.TRUE;
      case VALUE_FALSE -> JsonBoolean.FALSE;
      case VALUE_NULL -> JsonNull.INSTANCE;
      // END_ARRAY / END_OBJECT where a value belongs are syntax errors Jackson reports itself.
      default -> throw JsonException.of(JsonException.Reason.SYNTAX, offset(p.currentTokenLocation()),
          "unexpected " + t + ", expected a value");
    };
  }

  private JsonObject readObject(JsonParser p) throws IOException, JsonException {
    LinkedHashMap<String, JsonValue> members = new LinkedHashMap<>();
    while (true) {
      JsonToken t = p.nextToken();
      if (t == JsonToken.END_OBJECT) {
        return new JsonObject(members);
      }
      if (t != JsonToken.FIELD_NAME) {
        throw JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), "unterminated object");
      }
      long keyOffset = offset(p.currentTokenLocation());
      String key = checkedText(p);
      JsonValue value = readValue(p, p.nextToken());
      if (members.putIfAbsent(key, value) != null) {
        throw JsonException.of(JsonException.Reason.DUPLICATE_KEY, keyOffset,
            "duplicate member name \"" + abbreviate(key) + "\"");
      }
    }
  }

  private JsonArray readArray(JsonParser p) throws IOException, JsonException {
    List<JsonValue> elements = new ArrayList<>();
    while (true) {
      JsonToken t = p.nextToken();
      if (t == JsonToken.END_ARRAY) {
        return new JsonArray(elements);
      }
      if (t == null) {
        throw JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), "unterminated array");
      }
      elements.add(readValue(p, t));
    }
  }

  /** The current string or member name, rejected if it holds an unpaired surrogate (raw or escaped). */
  private String checkedText(JsonParser p) throws IOException, JsonException {
    String text = p.getText();
    if (JsonString.firstUnpairedSurrogate(text) >= 0) {
      throw JsonException.of(JsonException.Reason.UNPAIRED_SURROGATE, offset(p.currentTokenLocation()),
          "unpaired surrogate in a string");
    }
    return text;
  }

  private JsonNumber number(JsonParser p) throws IOException, JsonException {
    String text = p.getText();
    try {
      return new JsonNumber(text);
    } catch (IllegalArgumentException e) {
      throw JsonException.of(JsonException.Reason.INVALID_NUMBER, offset(p.currentTokenLocation()), "malformed number");
    }
  }

  private int skipWhitespace(int from) {
    int i = from;
    while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) {
      i++;
    }
    return i;
  }

  private long offset(JsonLocation location) {
    long at = location.getCharOffset();
    return at < 0 ? 0 : Math.min(at, s.length());
  }

  /**
   * The reason and offset of a Jackson failure, as the project defines them ({@link JsonException.Reason}):
   * the offset is that of the first character that cannot continue a valid document. Jackson's message
   * says which kind of token failed; for numbers and literals the offending character is found again with
   * the number grammar of {@link JsonNumber} and the literal's spelling.
   */
  private JsonException translate(JsonProcessingException e, JsonParser p) {
    String m = String.valueOf(e.getOriginalMessage());
    long at = e.getLocation() == null ? s.length() : offset(e.getLocation());
    boolean root = p.getParsingContext() == null || p.getParsingContext().inRoot();
    if (e instanceof StreamConstraintsException) {
      return JsonException.of(m.contains("nesting depth") ? JsonException.Reason.DEPTH_LIMIT
          : JsonException.Reason.SIZE_LIMIT, at, m);
    }
    if (m.startsWith("Unrecognized token '") || m.startsWith("Non-standard token '")) {
      int open = m.indexOf('\'');
      int close = m.indexOf('\'', open + 1);
      String token = close < 0 ? "" : m.substring(open + 1, close);
      return literal(Math.max(0, at - token.length()), root, m);
    }
    if (m.contains("plus sign") || m.contains("Number value") || m.contains("numeric value")
        || m.contains("number exponent") || m.contains("following sign") || m.contains("Leading zeroes")
        || m.contains("root-level values")) {
      return number((int) Math.min(at, s.length() - 1L), root, m);
    }
    if (m.contains("Illegal unquoted character")) {
      return JsonException.of(JsonException.Reason.CONTROL_CHARACTER, at, m);
    }
    if (m.contains("character escape")) {
      // Reported at the backslash that starts the escape.
      int backslash = s.lastIndexOf('\\', (int) Math.min(at, s.length() - 1L));
      return at >= s.length() ? JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), m)
          : JsonException.of(JsonException.Reason.INVALID_ESCAPE, Math.max(0, backslash), m);
    }
    if (m.startsWith("Illegal character")) {
      return JsonException.of(JsonException.Reason.SYNTAX, Math.max(0, at - 1), m);
    }
    if (m.contains("closing quote")) {
      // An unterminated string is reported where it starts.
      return JsonException.of(JsonException.Reason.UNEXPECTED_END, offset(p.currentTokenLocation()), m);
    }
    if (e instanceof JsonEOFException || at >= s.length() || m.contains("end-of-input")) {
      return JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), m);
    }
    if (at > 0 && s.charAt((int) at - 1) == '-') {
      return number((int) at - 1, root, m);
    }
    return JsonException.of(JsonException.Reason.SYNTAX, at, m);
  }

  /** A failed literal starting at {@code start}: a misspelling, a truncation or content right after it. */
  private JsonException literal(long start, boolean root, String m) {
    int i = (int) start;
    String literal = i >= s.length() ? "" : switch (s.charAt(i)) {
      case 't' -> "true";
      case 'f' -> "false";
      case 'n' -> "null";
      default -> "";
    };
    int k = 0;
    while (k < literal.length() && i + k < s.length() && s.charAt(i + k) == literal.charAt(k)) {
      k++;
    }
    if (!literal.isEmpty() && k == literal.length()) {
      return JsonException.of(root ? JsonException.Reason.TRAILING_CONTENT : JsonException.Reason.SYNTAX, i + k, m);
    }
    if (!literal.isEmpty() && i + k >= s.length()) {
      return JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), m);
    }
    return JsonException.of(JsonException.Reason.SYNTAX, i + k, m);
  }

  /** A failed number around {@code near}: rescanned from its first character with the RFC 8259 grammar. */
  private JsonException number(int near, boolean root, String m) {
    int start = Math.max(0, near);
    while (start > 0 && "0123456789+-.eE".indexOf(s.charAt(start - 1)) >= 0) {
      start--;
    }
    while (start < s.length() && "-0123456789+".indexOf(s.charAt(start)) < 0) {
      start++;
    }
    if (start >= s.length()) {
      return JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), m);
    }
    if (s.charAt(start) == '+') {
      return JsonException.of(JsonException.Reason.SYNTAX, start, "a number cannot start with '+'");
    }
    int end = JsonNumber.scan(s, start);
    if (end < 0) {
      int bad = -end - 1;
      return bad >= s.length() ? JsonException.of(JsonException.Reason.UNEXPECTED_END, s.length(), m)
          : JsonException.of(JsonException.Reason.INVALID_NUMBER, bad, m);
    }
    // The number itself is complete (e.g. the 0 of 01): what follows is the error.
    return JsonException.of(root ? JsonException.Reason.TRAILING_CONTENT : JsonException.Reason.SYNTAX,
        Math.min(end, s.length()), m);
  }

  private static String abbreviate(String key) {
    return key.length() <= 64 ? key : key.substring(0, 64) + "…";
  }
}
