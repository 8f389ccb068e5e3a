package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The §1.3 segment codec of runtime-inputs.md (event paths and subjects). */
class EventSegmentsTest {

  @Test
  void segmentEncodingExampleOf13() throws Exception {
    assertThat(EventSegments.encode("ns.a/b")).isEqualTo("ns%2Ea%2Fb");
    assertThat(EventSegments.decode("ns%2Ea%2Fb")).isEqualTo("ns.a/b");
  }

  @Test
  void onlyAlnumUnderscoreAndDashPassAndEveryOtherUtf8ByteIsUppercaseHex() throws Exception {
    assertThat(EventSegments.encode("kv-events_AZaz09")).isEqualTo("kv-events_AZaz09");
    assertThat(EventSegments.encode("a b~.%")).isEqualTo("a%20b%7E%2E%25");
    assertThat(EventSegments.encode("a b%é*~")).isEqualTo("a%20b%25%C3%A9%2A%7E");
    // UTF-8 bytes, uppercase hex: é = C3 A9; U+1F600 = F0 9F 98 80.
    assertThat(EventSegments.encode("é\uD83D\uDE00")).isEqualTo("%C3%A9%F0%9F%98%80");
    assertThat(EventSegments.decode("%C3%A9%F0%9F%98%80")).isEqualTo("é\uD83D\uDE00");
  }

  @Test
  void emptySegmentEncodesAndDecodesToEmpty() throws Exception {
    assertThat(EventSegments.encode("")).isEmpty();
    assertThat(EventSegments.decode("")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a.b", "a%2e", "%2", "%G0", "%41", "a%2Fb/c", "%C3", "%FF", "a b", "%", "é", "%2Fé"})
  void nonCanonicalSegmentsAreRejected(String encoded) {
    WireValidationException e = catchThrowableOfType(WireValidationException.class, () -> EventSegments.decode(encoded));
    assertThat(e).as(encoded).isNotNull();
    assertThat(e.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
    assertThat(e.field()).isEqualTo("event_segment");
    assertThat(e.detail()).contains(encoded);
  }

  @Test
  void unpairedSurrogatesHaveNoUtf8FormAndAreRejected() {
    assertThatThrownBy(() -> EventSegments.encode("a\uD83D")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EventSegments.encode("\uDE00b")).isInstanceOf(IllegalArgumentException.class);
  }
}
