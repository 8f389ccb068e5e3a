package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** producer.md §1.2: --dc-id validation with the exact upstream messages; hex text form. */
class DcIdTest {

  private static WireValidationException rejected(String name) {
    WireValidationException e = catchThrowableOfType(WireValidationException.class, () -> DcId.derive(name));
    assertThat(e).as("'%s' should be rejected", name).isNotNull();
    assertThat(e.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
    assertThat(e.field()).isEqualTo("dc_id");
    return e;
  }

  @Test
  void emptyNameIsRejectedWithTheUpstreamMessage() {
    assertThat(rejected("").detail()).isEqualTo("KV DC Relay dc_id must not be empty");
    assertThat(rejected(null).detail()).isEqualTo("KV DC Relay dc_id must not be empty");
  }

  @ParameterizedTest(name = "surrounding whitespace U+{0}")
  @ValueSource(strings = {" dc-a", "dc-a ", "\tdc-a", "dc-a\n", "\u00A0dc-a", "dc-a\u0085", "\u3000dc-a",
    "dc-a\u2028", " ", "\r\n"})
  void surroundingWhitespaceIsRejectedWithTheUpstreamMessage(String name) {
    assertThat(rejected(name).detail())
        .isEqualTo("KV DC Relay dc_id must not contain leading or trailing whitespace");
  }

  @Test
  void whitespaceFollowsRustTrimNotJavaStrip() throws Exception {
    // U+001F is Java whitespace but not Unicode White_Space: Rust's trim() keeps it, so upstream accepts it.
    assertThat(DcId.derive("\u001Fdc").value()).isEqualTo(ReferenceBlake3.dcId("\u001Fdc"));
    assertThat(DcId.derive("dc a").value()).isEqualTo(ReferenceBlake3.dcId("dc a"));
  }

  @Test
  void unpairedSurrogateIsRejected() {
    assertThat(rejected("dc\uD800").detail()).contains("UTF-8");
  }

  @Test
  void nonAsciiNamesHashTheirUtf8Bytes() throws Exception {
    assertThat(DcId.derive("rz-\u00FC\uD83D\uDE00").value()).isEqualTo(ReferenceBlake3.dcId("rz-\u00FC\uD83D\uDE00"));
  }

  @Test
  void parseHexAcceptsOnlySixteenLowercaseHexDigits() throws Exception {
    assertThat(DcId.parseHex("04f110c98b1bfc48")).isEqualTo(DcId.derive("dc-a"));
    assertThat(DcId.parseHex("ffffffffffffffff").value()).isEqualTo(-1L);
    for (String bad : new String[] {"04F110C98B1BFC48", "4f110c98b1bfc48", "004f110c98b1bfc48", "", "+4f110c98b1bfc48",
      "04f110c98b1bfc4g"}) {
      assertThat(catchThrowableOfType(WireValidationException.class, () -> DcId.parseHex(bad)))
          .as(bad).isNotNull();
    }
  }

  @Test
  void ordersUnsigned() {
    assertThat(DcId.of(-1L)).isGreaterThan(DcId.of(1L));
    assertThat(DcId.of(Long.MIN_VALUE)).isGreaterThan(DcId.of(Long.MAX_VALUE));
    assertThat(DcId.of(0)).isLessThan(DcId.of(1));
  }
}
