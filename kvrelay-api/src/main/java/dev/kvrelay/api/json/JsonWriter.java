package dev.kvrelay.api.json;

import java.util.Map;

/** Stateless and thread-safe: the compact writer behind {@link Json#write}. */
final class JsonWriter {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private JsonWriter() {}

  static void write(JsonValue value, StringBuilder out) {
    if (value instanceof JsonObject) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, JsonValue> e : ((JsonObject) value).members().entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        writeString(e.getKey(), out);
        out.append(':');
        write(e.getValue(), out);
      }
      out.append('}');
    } else if (value instanceof JsonArray) {
      out.append('[');
      boolean first = true;
      for (JsonValue v : ((JsonArray) value).elements()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        write(v, out);
      }
      out.append(']');
    } else if (value instanceof JsonString) {
      writeString(((JsonString) value).value(), out);
    } else if (value instanceof JsonNumber) {
      out.append(((JsonNumber) value).text());
    } else if (value instanceof JsonBoolean) {
      out.append(((JsonBoolean) value).value() ? "true" : "false");
    } else {
      out.append("null");
    }
  }

  static void writeString(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        case '\b':
          out.append("\\b");
          break;
        case '\f':
          out.append("\\f");
          break;
        default:
          if (c < 0x20) {
            out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }
}
