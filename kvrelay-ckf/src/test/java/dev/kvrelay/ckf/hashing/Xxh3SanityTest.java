package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** vectors.md §1: the two XXH3 sanity values. */
class Xxh3SanityTest {

  @Test
  void emptyInputSeedZeroIsTheStandardReferenceValue() {
    // C: standard XXH3 reference value.
    assertThat(Xxh3.withSeed(0).hash(new byte[0])).isEqualTo(0x2D06800538D394C2L);
    assertThat(Xxh3.unseeded(new byte[0], 0, 0)).isEqualTo(0x2D06800538D394C2L);
    assertThat(Xxh3.unseeded("")).isEqualTo(0x2D06800538D394C2L);
  }

  @Test
  void upstreamTestDataSeed1337() {
    // U: lib/kv-router/src/protocols.rs test_router_event_new.
    byte[] bytes = "test data".getBytes(StandardCharsets.UTF_8);
    assertThat(Xxh3.withSeed(1337).hash(bytes))
        .isEqualTo(Long.parseUnsignedLong("13226331709069118873"));
    assertThat(Xxh3.withSeed(1337).hash(bytes, 0, bytes.length))
        .isEqualTo(Long.parseUnsignedLong("13226331709069118873"));
  }
}
