package dev.kvrelay.api.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The strictness the reader adds on top of jackson-core and the Jackson defaults it lifts: each case is one
 * Jackson accepts (or bounds) by default and the project's contract does not.
 */
class JsonStrictnessOnJacksonTest {

  private static JsonException fail(String text) {
    JsonException e = catchThrowableOfType(JsonException.class, () -> Json.parse(text));
    assertThat(e).as("parse(%s) must fail", text).isNotNull();
    return e;
  }

  @Test
  void aRawHighSurrogateBeforeAnEscapedLowOneIsUnpaired() {
    // Jackson would join them into one code point; raw text must be well-formed UTF-16 by itself.
    char high = (char) 0xD800;
    JsonException e = fail("[\"a" + high + "\\" + "uDC00\"]");
    assertThat(e.reason()).isEqualTo(JsonException.Reason.UNPAIRED_SURROGATE);
    assertThat(e.offset()).isEqualTo(3);
  }

  @Test
  void escapedUnpairedSurrogatesInMemberNamesAreRejected() {
    assertThat(fail("{\"\\uD800\":1}").reason()).isEqualTo(JsonException.Reason.UNPAIRED_SURROGATE);
  }

  @Test
  void severalTopLevelValuesAreTrailingContent() {
    // Jackson reads a sequence of root values by default.
    JsonException e = fail("{\"a\":1} {\"a\":2}");
    assertThat(e.reason()).isEqualTo(JsonException.Reason.TRAILING_CONTENT);
    assertThat(e.offset()).isEqualTo(8);
    assertThat(fail("truex").reason()).isEqualTo(JsonException.Reason.TRAILING_CONTENT);
    assertThat(fail("[truex]").reason()).isEqualTo(JsonException.Reason.SYNTAX);
  }

  @Test
  void byteOrderMarkInTextIsRejected() {
    assertThat(fail("\uFEFF1").reason()).isEqualTo(JsonException.Reason.SYNTAX);
  }

  @Test
  void numbersLongerThanJacksonsDefaultBoundKeepTheirExactText() throws Exception {
    String digits = "1" + "0".repeat(5_000); // Jackson's default maxNumberLength is 1000
    assertThat(Json.parse("[" + digits + "]")).isEqualTo(JsonArray.of(new JsonNumber(digits)));
    String fraction = "0." + "5".repeat(3_000) + "e-7";
    assertThat(Json.parse(fraction)).isEqualTo(new JsonNumber(fraction));
  }

  @Test
  void memberNamesLongerThanJacksonsDefaultBoundAreAccepted() throws Exception {
    String name = "k".repeat(60_000); // Jackson's default maxNameLength is 50 000
    JsonObject o = (JsonObject) Json.parse("{\"" + name + "\":true}");
    assertThat(o.get(name)).isEqualTo(JsonBoolean.TRUE);
  }

  @Test
  void numberErrorsPointAtTheOffendingCharacter() {
    JsonException dot = fail("[1.x]");
    assertThat(dot.reason()).isEqualTo(JsonException.Reason.INVALID_NUMBER);
    assertThat(dot.offset()).isEqualTo(3);
    JsonException exponent = fail("{\"a\":2e+}");
    assertThat(exponent.reason()).isEqualTo(JsonException.Reason.INVALID_NUMBER);
    assertThat(exponent.offset()).isEqualTo(8);
    JsonException zero = fail("[01]");
    assertThat(zero.reason()).isEqualTo(JsonException.Reason.SYNTAX);
    assertThat(zero.offset()).isEqualTo(2);
  }

  @Test
  void literalErrorsPointAtTheFirstWrongLetter() {
    JsonException e = fail("[nul1]");
    assertThat(e.reason()).isEqualTo(JsonException.Reason.SYNTAX);
    assertThat(e.offset()).isEqualTo(4);
    assertThat(fail("[fals").reason()).isEqualTo(JsonException.Reason.UNEXPECTED_END);
  }

  @Test
  void invalidUtf8InsideAStringIsStillReportedAtItsByteOffset() {
    byte[] bad = "{\"k\":\"ab".getBytes(StandardCharsets.UTF_8);
    byte[] input = new byte[bad.length + 3];
    System.arraycopy(bad, 0, input, 0, bad.length);
    input[bad.length] = (byte) 0xFF;
    input[bad.length + 1] = '"';
    input[bad.length + 2] = '}';
    JsonException e = catchThrowableOfType(JsonException.class, () -> Json.parse(input));
    assertThat(e.reason()).isEqualTo(JsonException.Reason.INVALID_UTF8);
    assertThat(e.offset()).isEqualTo(bad.length);
  }
}
