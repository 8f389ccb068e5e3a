package dev.kvrelay.api.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonReaderTest {

  private static JsonException.Reason reasonOf(String text) {
    JsonException e = catchThrowableOfType(JsonException.class, () -> Json.parse(text));
    assertThat(e).as("parse(%s) must fail", text).isNotNull();
    return e.reason();
  }

  @Test
  void readsTheRfc8259ImageExampleWithMembersInDocumentOrder() throws Exception {
    // RFC 8259 §13, first example (abridged).
    JsonValue v = Json.parse("{\"Image\":{\"Width\":800,\"Height\":600,\"Title\":\"View from 15th Floor\","
        + "\"Thumbnail\":{\"Url\":\"http://www.example.com/image/481989943\",\"Height\":125,\"Width\":100},"
        + "\"Animated\":false,\"IDs\":[116,943,234,38793]}}");
    JsonObject image = (JsonObject) ((JsonObject) v).get("Image");
    assertThat(image.members().keySet()).containsExactly("Width", "Height", "Title", "Thumbnail", "Animated", "IDs");
    assertThat(((JsonNumber) image.get("Width")).asInt()).isEqualTo(800);
    assertThat(image.get("Animated")).isEqualTo(JsonBoolean.FALSE);
    assertThat(((JsonArray) image.get("IDs")).elements())
        .containsExactly(new JsonNumber("116"), new JsonNumber("943"), new JsonNumber("234"), new JsonNumber("38793"));
  }

  @Test
  void readsScalarsAtTopLevelWithSurroundingWhitespace() throws Exception {
    assertThat(Json.parse(" \t\r\n42 ")).isEqualTo(new JsonNumber("42"));
    assertThat(Json.parse("\"x\"")).isEqualTo(new JsonString("x"));
    assertThat(Json.parse("true")).isEqualTo(JsonBoolean.TRUE);
    assertThat(Json.parse("null")).isEqualTo(JsonNull.INSTANCE);
    assertThat(Json.parse("[]")).isEqualTo(new JsonArray(List.of()));
    assertThat(Json.parse("{}")).isEqualTo(JsonObject.of());
  }

  @Test
  void decodesEveryEscapeIncludingASurrogatePair() throws Exception {
    JsonValue v = Json.parse("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00 \\u0000\"");
    assertThat(((JsonString) v).value()).isEqualTo("\" \\ / \b \f \n \r \t é \uD83D\uDE00 \u0000");
  }

  @Test
  void numbersKeepTheirExactText() throws Exception {
    assertThat(Json.parse("-0.0e+00")).isEqualTo(new JsonNumber("-0.0e+00"));
    assertThat(Json.parse("1.0")).isNotEqualTo(Json.parse("1"));
    assertThat(Json.parse("123456789012345678901234567890")).isEqualTo(new JsonNumber("123456789012345678901234567890"));
  }

  @ParameterizedTest(name = "{0} → {1}")
  @CsvSource(delimiter = '|', value = {
    "''                    | UNEXPECTED_END",
    "'   '                 | UNEXPECTED_END",
    "'{'                   | UNEXPECTED_END",
    "'[1,'                 | UNEXPECTED_END",
    "'\"abc'               | UNEXPECTED_END",
    "'tru'                 | UNEXPECTED_END",
    "'-'                   | UNEXPECTED_END",
    "'1.'                  | UNEXPECTED_END",
    "'[1,]'                | SYNTAX",
    "'{\"a\":1,}'          | SYNTAX",
    "'{a:1}'               | SYNTAX",
    "'''a'''               | SYNTAX",
    "'NaN'                 | SYNTAX",
    "'nul1'                | SYNTAX",
    "'[1 2]'               | SYNTAX",
    "'{\"a\" 1}'           | SYNTAX",
    "'01'                  | TRAILING_CONTENT",
    "'1 2'                 | TRAILING_CONTENT",
    "'{} x'                | TRAILING_CONTENT",
    "'+1'                  | SYNTAX",
    "'1.e5'                | INVALID_NUMBER",
    "'1e'                  | UNEXPECTED_END",
    "'1e+x'                | INVALID_NUMBER",
    "'-x'                  | INVALID_NUMBER",
    "'\"\\x\"'             | INVALID_ESCAPE",
    "'\"\\u12G4\"'         | INVALID_ESCAPE",
    "'\"\\u12\"'           | INVALID_ESCAPE",
    "'\"\\uD800\"'         | UNPAIRED_SURROGATE",
    "'\"\\uDC00\"'         | UNPAIRED_SURROGATE",
    "'\"\\uD800\\u0041\"'  | UNPAIRED_SURROGATE",
    "'{\"a\":1,\"a\":2}'   | DUPLICATE_KEY",
  })
  void malformedTextIsRejectedWithItsReason(String text, JsonException.Reason reason) {
    assertThat(reasonOf(text)).isEqualTo(reason);
  }

  @Test
  void rawControlCharactersAndUnpairedSurrogatesInStringsAreRejected() {
    assertThat(reasonOf("\"a\nb\"")).isEqualTo(JsonException.Reason.CONTROL_CHARACTER);
    assertThat(reasonOf("\"a\u0000b\"")).isEqualTo(JsonException.Reason.CONTROL_CHARACTER);
    assertThat(reasonOf("\"a\uD800b\"")).isEqualTo(JsonException.Reason.UNPAIRED_SURROGATE);
    assertThat(reasonOf("\"a\uDC00\"")).isEqualTo(JsonException.Reason.UNPAIRED_SURROGATE);
  }

  @Test
  void errorsCarryTheOffsetOfTheOffendingCharacter() {
    JsonException dup = catchThrowableOfType(JsonException.class, () -> Json.parse("{\"a\":1, \"a\":2}"));
    assertThat(dup.offset()).isEqualTo(8);
    assertThat(dup.getMessage()).contains("duplicate member name \"a\"");
    JsonException syntax = catchThrowableOfType(JsonException.class, () -> Json.parse("[1,2,x]"));
    assertThat(syntax.offset()).isEqualTo(5);
  }

  @Test
  void duplicateKeysAreDetectedInNestedObjectsToo() {
    assertThat(reasonOf("{\"a\":{\"b\":1,\"c\":2,\"b\":3}}")).isEqualTo(JsonException.Reason.DUPLICATE_KEY);
    // Same name in sibling objects is fine.
    assertThat(catchThrowableOfType(JsonException.class, () -> Json.parse("[{\"a\":1},{\"a\":2}]"))).isNull();
  }

  @Test
  void depthLimitIsInclusive() throws Exception {
    String ok = "[".repeat(256) + "]".repeat(256);
    assertThat(Json.parse(ok)).isInstanceOf(JsonArray.class);
    String deep = "[".repeat(257) + "]".repeat(257);
    assertThat(reasonOf(deep)).isEqualTo(JsonException.Reason.DEPTH_LIMIT);
    String veryDeep = "{\"a\":".repeat(100_000);
    assertThat(reasonOf(veryDeep)).isEqualTo(JsonException.Reason.DEPTH_LIMIT);
    assertThatThrownBy(() -> Json.parse("[[[]]]", new JsonLimits(2, 100)))
        .isInstanceOfSatisfying(JsonException.class, e -> assertThat(e.reason()).isEqualTo(JsonException.Reason.DEPTH_LIMIT));
  }

  @Test
  void depthLimitIsBoundedSoTheRecursiveReaderCannotOverflowTheStack() throws Exception {
    JsonLimits deepest = new JsonLimits(JsonLimits.MAX_DEPTH_BOUND, JsonLimits.DEFAULT_MAX_LENGTH);
    String deep = "[".repeat(JsonLimits.MAX_DEPTH_BOUND) + "]".repeat(JsonLimits.MAX_DEPTH_BOUND);
    assertThat(Json.parse(deep, deepest)).isInstanceOf(JsonArray.class);
    assertThatThrownBy(() -> new JsonLimits(JsonLimits.MAX_DEPTH_BOUND + 1, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JsonLimits(0, 10)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sizeLimitAppliesToTextAndBytes() {
    JsonLimits small = new JsonLimits(8, 4);
    assertThatThrownBy(() -> Json.parse("12345", small))
        .isInstanceOfSatisfying(JsonException.class, e -> assertThat(e.reason()).isEqualTo(JsonException.Reason.SIZE_LIMIT));
    assertThatThrownBy(() -> Json.parse("\"éé\"".getBytes(StandardCharsets.UTF_8), small))
        .isInstanceOfSatisfying(JsonException.class, e -> assertThat(e.reason()).isEqualTo(JsonException.Reason.SIZE_LIMIT));
  }

  @Test
  void invalidUtf8IsReportedAtItsByteOffset() {
    byte[] bad = {'[', '"', 'a', (byte) 0xC3, '"', ']'};
    JsonException e = catchThrowableOfType(JsonException.class, () -> Json.parse(bad));
    assertThat(e.reason()).isEqualTo(JsonException.Reason.INVALID_UTF8);
    assertThat(e.offset()).isEqualTo(3);
    byte[] encodedSurrogate = {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'};
    assertThat(catchThrowableOfType(JsonException.class, () -> Json.parse(encodedSurrogate)).reason())
        .isEqualTo(JsonException.Reason.INVALID_UTF8);
  }

  @Test
  void byteOrderMarkIsRejected() {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '1'};
    assertThat(catchThrowableOfType(JsonException.class, () -> Json.parse(bom)).reason())
        .isEqualTo(JsonException.Reason.SYNTAX);
  }

  @Test
  void unsignedAccessorCoversTheWholeU64Range() throws Exception {
    assertThat(new JsonNumber("0").asUnsignedLong()).isZero();
    assertThat(new JsonNumber("9223372036854775807").asUnsignedLong()).isEqualTo(Long.MAX_VALUE);
    // 2^63 and 2^64 - 1: the upper half of u64 lands on negative longs.
    assertThat(new JsonNumber("9223372036854775808").asUnsignedLong()).isEqualTo(Long.MIN_VALUE);
    assertThat(new JsonNumber("18446744073709551615").asUnsignedLong()).isEqualTo(-1L);
    assertThat(new JsonNumber("7587891234567890123").asUnsignedLong()).isEqualTo(7587891234567890123L);
    assertThat(JsonNumber.ofUnsigned(-1L).text()).isEqualTo("18446744073709551615");
  }

  @ParameterizedTest(name = "{0} → {1}")
  @CsvSource({
    "18446744073709551616, NUMBER_OUT_OF_RANGE",
    "100000000000000000000000, NUMBER_OUT_OF_RANGE",
    "-1, NOT_AN_INTEGER",
    "-0, NOT_AN_INTEGER",
    "1.0, NOT_AN_INTEGER",
    "1e3, NOT_AN_INTEGER",
    "1E+0, NOT_AN_INTEGER",
  })
  void unsignedAccessorRejects(String text, JsonException.Reason reason) {
    JsonException e = catchThrowableOfType(JsonException.class, () -> new JsonNumber(text).asUnsignedLong());
    assertThat(e.reason()).isEqualTo(reason);
    assertThat(e.offset()).isEqualTo(-1);
  }

  @Test
  void signedAccessorsCheckTheirRanges() throws Exception {
    assertThat(new JsonNumber("-9223372036854775808").asLong()).isEqualTo(Long.MIN_VALUE);
    assertThat(catchThrowableOfType(JsonException.class, () -> new JsonNumber("9223372036854775808").asLong()).reason())
        .isEqualTo(JsonException.Reason.NUMBER_OUT_OF_RANGE);
    assertThat(new JsonNumber("-2147483648").asInt()).isEqualTo(Integer.MIN_VALUE);
    assertThat(catchThrowableOfType(JsonException.class, () -> new JsonNumber("2147483648").asInt()).reason())
        .isEqualTo(JsonException.Reason.NUMBER_OUT_OF_RANGE);
    assertThat(catchThrowableOfType(JsonException.class, () -> new JsonNumber("99999999999999999999999").asInt()).reason())
        .isEqualTo(JsonException.Reason.NUMBER_OUT_OF_RANGE);
    assertThat(catchThrowableOfType(JsonException.class, () -> new JsonNumber("2.5").asInt()).reason())
        .isEqualTo(JsonException.Reason.NOT_AN_INTEGER);
    assertThat(new JsonNumber("2.5e-1").asDouble()).isEqualTo(0.25);
    assertThat(catchThrowableOfType(JsonException.class, () -> new JsonNumber("1e400").asDouble()).reason())
        .isEqualTo(JsonException.Reason.NUMBER_OUT_OF_RANGE);
  }

  @Test
  void numberConstructorEnforcesTheGrammar() {
    for (String bad : List.of("", "-", "01", "1.", ".5", "1e", "+1", "0x10", "1 ", "NaN", "Infinity", "1e+")) {
      assertThatThrownBy(() -> new JsonNumber(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(new BigInteger(JsonNumber.ofUnsigned(Long.MIN_VALUE).text())).isEqualTo(BigInteger.ONE.shiftLeft(63));
    assertThat(JsonNumber.of(1e10).text()).isEqualTo("1.0E10");
    assertThatThrownBy(() -> JsonNumber.of(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }
}
