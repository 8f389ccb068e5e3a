package dev.kvrelay.api.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Stateless and thread-safe: the compact writer behind {@link Json#write}, on jackson-core's streaming
 * {@link JsonGenerator}. Jackson's default escaping is the project's ({@code "}, {@code \\} and the control
 * characters only; {@code \b \t \n \f \r} in short form), with lowercase hex in {@code \\u00xx}; number text
 * is written verbatim.
 */
final class JsonWriter {
  private static final JsonFactory FACTORY = JsonFactory.builder()
      .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
      .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
      .disable(JsonWriteFeature.ESCAPE_NON_ASCII)
      // A value tree is as deep as its builder made it; the reader's limits bound parsed trees.
      .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(Integer.MAX_VALUE).build())
      .build();

  private JsonWriter() {}

  static String write(JsonValue value) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      write(value, g);
    } catch (IOException e) {
      throw new UncheckedIOException("writing JSON to memory failed", e);
    }
    return out.toString();
  }

  private static void write(JsonValue value, JsonGenerator g) throws IOException {
    if (value instanceof JsonObject o) {
      g.writeStartObject();
      for (Map.Entry<String, JsonValue> e : o.members().entrySet()) {
        g.writeFieldName(e.getKey());
        write(e.getValue(), g);
      }
      g.writeEndObject();
    } else if (value instanceof JsonArray a) {
      g.writeStartArray();
      for (JsonValue v : a.elements()) {
        write(v, g);
      }
      g.writeEndArray();
    } else if (value instanceof JsonString s) {
      g.writeString(s.value());
    } else if (value instanceof JsonNumber n) {
      g.writeNumber(n.text());
    } else if (value instanceof JsonBoolean b) {
      g.writeBoolean(b.value());
    } else {
      g.writeNull();
    }
  }
}
