package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SubscriberIdTest {

  @Test
  void acceptsUpTo128Utf8BytesIncludingMultibyteCharacters() throws Exception {
    assertThat(SubscriberId.check("router-a")).isEqualTo("router-a");
    assertThat(SubscriberId.check("x".repeat(128))).hasSize(128);
    String euros = "€".repeat(42) + "ab"; // 42 × 3 + 2 = 128 bytes
    assertThat(SubscriberId.check(euros)).isEqualTo(euros);
  }

  @Test
  void rejectsTooLongByBytesNotCharacters() {
    assertThatThrownBy(() -> SubscriberId.check("x".repeat(129))).isInstanceOf(RelayException.class)
        .extracting(e -> ((RelayException) e).reason()).isEqualTo(RelayErrorReason.INVALID_REQUEST);
    String euros = "€".repeat(43); // 43 characters, 129 bytes
    assertThatThrownBy(() -> SubscriberId.check(euros)).hasMessageContaining("129");
  }

  @Test
  void rejectsEmptyAndNull() {
    assertThatThrownBy(() -> SubscriberId.check("")).hasMessageContaining("empty");
    assertThatThrownBy(() -> SubscriberId.check(null)).hasMessageContaining("empty");
  }

  @ParameterizedTest
  @ValueSource(ints = {0x00, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0x9F})
  void rejectsEveryCategoryCcCharacter(int cp) {
    String id = "a" + new String(Character.toChars(cp)) + "b";
    assertThatThrownBy(() -> SubscriberId.check(id)).isInstanceOf(RelayException.class)
        .extracting(e -> ((RelayException) e).reason()).isEqualTo(RelayErrorReason.INVALID_REQUEST);
  }

  @ParameterizedTest
  @ValueSource(ints = {0x20, 0x7E, 0xA0, 0x200B, 0x1F600})
  void acceptsNonControlNeighbours(int cp) throws Exception {
    String id = "a" + new String(Character.toChars(cp)) + "b";
    assertThat(SubscriberId.check(id)).isEqualTo(id);
  }
}
