package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * vectors.md §2: the canonical chain (seed 1337). C values were confirmed with Python's xxhash
 * ({@code xxh3_64_intdigest(LE64(p) ‖ LE64(t), seed=1337)}).
 */
class CanonicalHashTest {

  @Test
  void upstreamChainVector() {
    long c0 = CanonicalHash.root(0x0123456789ABCDEFL);
    long c1 = CanonicalHash.child(c0, 0x1111222233334444L);
    long c2 = CanonicalHash.child(c1, 0xDEADBEEFCAFEBABEL);
    assertThat(c0).isEqualTo(0x0123456789ABCDEFL);
    assertThat(c1).isEqualTo(0x98E7E55F299CF592L);
    assertThat(c2).isEqualTo(0x65D53B99C5252D19L);
  }

  @Test
  void computedChainVectors() {
    long c = CanonicalHash.child(CanonicalHash.root(17), 23);
    assertThat(c).isEqualTo(0xE7D5CFB58104F9EFL);
    assertThat(Long.toUnsignedString(c)).isEqualTo("16705486771261340143");
    assertThat(CanonicalHash.child(c, 29)).isEqualTo(0xB740F566D85B1539L);
    long a = CanonicalHash.root(11);
    long b = CanonicalHash.child(a, 22);
    assertThat(Long.toUnsignedString(b)).isEqualTo("750553365844651409");
    assertThat(Long.toUnsignedString(CanonicalHash.child(b, 33))).isEqualTo("3257565445809651757");
  }
}
