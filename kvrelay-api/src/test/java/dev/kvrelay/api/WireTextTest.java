package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.quicktheories.QuickTheory.qt;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The public text rules shared by the api, the engine (membership and topology) and the discovery SPI:
 * Rust-trim whitespace, well-formed UTF-16, and code-point (= UTF-8 byte) order.
 */
class WireTextTest {

  @ParameterizedTest
  @ValueSource(ints = {0x09, 0x0A, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F,
      0x205F, 0x3000})
  void rustWhitespaceAtEitherEnd_isRejected(int cp) {
    String ws = new String(Character.toChars(cp));
    assertThat(WireText.isValid(ws + "a")).isFalse();
    assertThat(WireText.isValid("a" + ws)).isFalse();
    assertThat(WireText.isValid("a" + ws + "b")).isTrue();
  }

  @ParameterizedTest
  @ValueSource(ints = {0x1C, 0x1D, 0x1E, 0x1F, 0x200B, 0xFEFF})
  void javaOnlyOrZeroWidthSpaces_areNotRustWhitespace(int cp) {
    assertThat(WireText.isValid(new String(Character.toChars(cp)) + "a")).isTrue();
  }

  @Test
  void emptyAbsentAndUnpairedSurrogates_areRejectedWithTypedErrors() throws Exception {
    assertThat(WireText.isValid(null)).isFalse();
    assertThat(WireText.isValid("")).isFalse();
    assertThat(WireText.isValid("a\uD800")).isFalse();
    assertThat(WireText.isValid("\uDC00a")).isFalse();
    assertThat(WireText.isValid("a\uD83D\uDE00")).isTrue();
    WireValidationException e = catchThrowableOfType(WireValidationException.class,
        () -> WireText.check("namespace", "a\uD800"));
    assertThat(e.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
    assertThat(e.field()).isEqualTo("namespace");
    assertThat(WireText.check("namespace", "ns")).isEqualTo("ns");
    assertThatThrownBy(() -> WireText.require("model", " x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("model");
  }

  @Test
  void codePointOrder_isUtf8ByteOrder_notUtf16Order() {
    // U+FFFF sorts before U+10000 in UTF-8 bytes, after it in UTF-16 code units.
    assertThat(WireText.compareCodePoints("\uFFFF", "\uD800\uDC00")).isNegative();
    qt().withExamples(2000).forAll(TestGens.wellFormed(0, 6), TestGens.wellFormed(0, 6)).checkAssert((a, b) ->
        assertThat(Integer.signum(WireText.CODE_POINT_ORDER.compare(a, b))).isEqualTo(Integer.signum(
            Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)))));
  }
}
