package dev.kvrelay.api.json;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Stateless and thread-safe: reads and writes JSON (RFC 8259).
 *
 * <p>Reading accepts exactly one value surrounded by optional whitespace (space, tab, LF, CR); no byte
 * order mark, comments, trailing commas, {@code NaN} or single quotes. Strings must be well-formed UTF-16
 * after unescaping (an unpaired surrogate, raw or as {@code \\uXXXX}, is rejected). Every failure is a
 * {@link JsonException}; no input makes the reader throw anything unchecked.
 *
 * <p>Both directions run on jackson-core's streaming parser and generator (no data binding); this class
 * keeps the project's strictness on top of it (duplicate member names, unpaired surrogates, depth and
 * size limits, exact number text, typed errors with offsets).
 *
 * <p>Writing is compact (no whitespace), keeps object member order and number text, escapes {@code "},
 * {@code \\} and control characters, and leaves other characters as they are; {@code
 * parse(write(v)).equals(v)} holds for every value.
 */
public final class Json {

  private Json() {}

  /** Parses {@code text} under {@link JsonLimits#DEFAULT}. */
  public static JsonValue parse(String text) throws JsonException {
    return parse(text, JsonLimits.DEFAULT);
  }

  /** Parses {@code text} under the given limits. */
  public static JsonValue parse(String text, JsonLimits limits) throws JsonException {
    if (text.length() > limits.maxLength()) {
      throw JsonException.of(JsonException.Reason.SIZE_LIMIT, limits.maxLength(),
          "JSON text of " + text.length() + " chars exceeds the limit of " + limits.maxLength());
    }
    return new JsonReader(text, limits).readDocument();
  }

  /** Parses UTF-8 bytes under {@link JsonLimits#DEFAULT}. */
  public static JsonValue parse(byte[] utf8) throws JsonException {
    return parse(utf8, JsonLimits.DEFAULT);
  }

  /** Parses UTF-8 bytes under the given limits; invalid UTF-8 is {@link JsonException.Reason#INVALID_UTF8}. */
  public static JsonValue parse(byte[] utf8, JsonLimits limits) throws JsonException {
    if (utf8.length > limits.maxLength()) {
      throw JsonException.of(JsonException.Reason.SIZE_LIMIT, limits.maxLength(),
          "JSON input of " + utf8.length + " bytes exceeds the limit of " + limits.maxLength());
    }
    return new JsonReader(decodeUtf8(utf8), limits).readDocument();
  }

  /** The compact JSON text of {@code value}. */
  public static String write(JsonValue value) {
    return JsonWriter.write(value);
  }

  /** The compact JSON of {@code value} as UTF-8 bytes. */
  public static byte[] writeUtf8(JsonValue value) {
    return write(value).getBytes(StandardCharsets.UTF_8);
  }

  private static String decodeUtf8(byte[] utf8) throws JsonException {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(utf8);
    CharBuffer out = CharBuffer.allocate(utf8.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      throw JsonException.of(JsonException.Reason.INVALID_UTF8, in.position(), "input is not valid UTF-8");
    }
    out.flip();
    return out.toString();
  }
}
