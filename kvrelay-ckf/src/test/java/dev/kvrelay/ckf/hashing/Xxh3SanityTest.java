package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** vectors.md §1: the two XXH3 sanity values. */
class Xxh3SanityTest {

  @Test
  void emptyInputSeedZeroIsTheStandardReferenceValue() {
    // C: standard XXH3 reference value.
    assertThat(Xxh3.withSeed(0).hash(new byte[0])).isEqualTo(0x2D06800538D394C2L);
    assertThat(Xxh3.unseeded(new byte[0], 0, 0)).isEqualTo(0x2D06800538D394C2L);
    assertThat(Xxh3.unseeded("")).isEqualTo(0x2D06800538D394C2L);
  }

  /**
   * Decision pinned: ckf-cbi1.md §10 "Decision needed — Java XXH3 library": hash4j (behind {@link Xxh3})
   * is the choice, and it must pass the §8.1 (upstream) and §8.3 (computed) addressing vectors and the
   * unseeded empty-input value. The addressing formula of §1.2 is written out here over the facade, so
   * the library is pinned independently of {@code CkfAddressing} and its inline delta hash.
   */
  @ParameterizedTest(name = "seed {0}, B {1}, hash {2} -> ({3}, {4}, {5})")
  @CsvSource({
    // ckf-cbi1.md §8.1 (U, TEST_SEED)
    "0x123456789ABCDEF0, 1024, 0x0000000000000000,  7750,    587,    372",
    "0x123456789ABCDEF0, 1024, 0x0000000000000001, 64153,    348,     36",
    "0x123456789ABCDEF0, 1024, 0x0123456789ABCDEF, 45802,    865,    909",
    "0x123456789ABCDEF0, 1024, 0xFFFFFFFFFFFFFFFF, 31767,    112,    217",
    // ckf-cbi1.md §8.3 (C, default seed)
    "0x5DEECE66D1B54A33, 524288, 0x0000000000000000, 46238, 394334, 337982",
    "0x5DEECE66D1B54A33, 524288, 0x0000000000000001, 47807, 129663, 522653",
    "0x5DEECE66D1B54A33, 524288, 0x0123456789ABCDEF, 32097, 236423, 195253",
    "0x5DEECE66D1B54A33, 524288, 0xFFFFFFFFFFFFFFFF, 20490, 117321, 453072",
  })
  void decisionPinned_xxh3LibraryHash4jPassesTheAddressingVectors(
      String seedHex, int buckets, String hashHex, int fingerprint, int bucketA, int bucketB) {
    long seed = Long.parseUnsignedLong(seedHex.substring(2), 16);
    long hash = Long.parseUnsignedLong(hashHex.substring(2), 16);
    long mask = buckets - 1;
    long mixed = Xxh3.withSeed(seed).hashLong(hash);
    int fp = (int) (mixed & 0xFFFF) == 0 ? 1 : (int) (mixed & 0xFFFF);
    long a = (mixed >>> 16) & mask;
    long d = Xxh3.withSeed(seed ^ 0x9E3779B97F4A7C15L).hashShort(fp) & mask;
    long b = a ^ (d == 0 ? 1 : d);
    assertThat(new long[] {fp, a, b}).containsExactly(fingerprint, bucketA, bucketB);
    assertThat(Xxh3.unseeded(new byte[0], 0, 0)).isEqualTo(0x2D06800538D394C2L);
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
