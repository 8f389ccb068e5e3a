package dev.kvrelay.ckf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.hashing.Xxh3;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** vectors.md §1: addressing. */
class CkfAddressingTest {
  private static final long TEST_SEED = 0x1234_5678_9ABC_DEF0L;

  @ParameterizedTest(name = "upstream TEST_SEED B=1024 h={0}")
  @CsvSource({
    "0, 7750, 587, 372",
    "1, 64153, 348, 36",
    "0x0123456789ABCDEF, 45802, 865, 909",
    "0xFFFFFFFFFFFFFFFF, 31767, 112, 217",
  })
  void upstreamVectors(String hash, int fp, int a, int b) {
    assertAddress(CkfAddressing.of(CkfFormat.of(TEST_SEED, 1024)), hash, fp, a, b);
  }

  @ParameterizedTest(name = "computed default seed B=524288 h={0}")
  @CsvSource({
    "0, 46238, 394334, 337982",
    "1, 47807, 129663, 522653",
    "0x0123456789ABCDEF, 32097, 236423, 195253",
    "0xFFFFFFFFFFFFFFFF, 20490, 117321, 453072",
  })
  void computedDefaultSeedVectors(String hash, int fp, int a, int b) {
    assertAddress(CkfAddressing.of(CkfFormat.withDefaultSeed(524_288)), hash, fp, a, b);
  }

  @Test
  void upstreamPropertyFingerprintNonZeroBucketsDistinctAlternateInvolution() {
    CkfAddressing addr = CkfAddressing.of(CkfFormat.of(TEST_SEED, 1024));
    for (long h = 0; h < 10_000; h++) {
      long p = addr.prepare(h);
      int fp = CkfAddressing.fingerprint(p);
      int a = CkfAddressing.bucketA(p);
      int b = CkfAddressing.bucketB(p);
      assertThat(fp).isNotZero();
      assertThat(a).isNotEqualTo(b);
      assertThat(addr.alternate(b, fp)).isEqualTo(a);
      assertThat(addr.alternate(a, fp)).isEqualTo(b);
    }
  }

  @Test
  void mixedHashCutsFingerprintAndBucketAAsPrepareDoes() {
    // §1.2 on the raw XXH3 value: fp = low 16 bits with 0 -> 1, bucket A = bits 16.. masked.
    CkfAddressing addr = CkfAddressing.of(CkfFormat.of(TEST_SEED, 1 << 20));
    for (long m : new long[] {0L, 0xFFFF_0000L, 0x1_0000L, 0xABCD_0001L, -1L, 0x8000_0000_0000_0000L}) {
      long low = m & 0xFFFF;
      assertThat(CkfAddressing.fingerprintOfMix(m)).as("fp of 0x%x", m).isEqualTo(low == 0 ? 1 : (int) low);
      assertThat(addr.bucketAOfMix(m)).as("bucket A of 0x%x", m).isEqualTo((int) ((m >>> 16) & ((1 << 20) - 1)));
    }
    for (long h = 0; h < 10_000; h++) {
      long p = addr.prepare(h);
      long m = addr.mix(h);
      assertThat(CkfAddressing.fingerprintOfMix(m)).isEqualTo(CkfAddressing.fingerprint(p));
      assertThat(addr.bucketAOfMix(m)).isEqualTo(CkfAddressing.bucketA(p));
    }
  }

  @Test
  void inlineDeltaHashEqualsTheLibrarysXxh3OfTheTwoFingerprintBytesForEveryFingerprint() {
    // delta(fp) = XXH3_64(LE16(fp), seed ^ GOLDEN) & mask, 0 -> 1 (§1.2), through hash4j's byte-array path.
    for (long seed : new long[] {CkfFormat.DEFAULT_SEED, TEST_SEED, 0L, -1L, CkfAddressing.GOLDEN}) {
      Xxh3 library = Xxh3.withSeed(seed ^ CkfAddressing.GOLDEN);
      CkfAddressing wide = CkfAddressing.of(CkfFormat.of(seed, 1 << 24));
      CkfAddressing two = CkfAddressing.of(CkfFormat.of(seed, 2));
      for (int fp = 0; fp < 1 << 16; fp++) {
        long h = library.hashShort(fp);
        int wideDelta = (int) (h & 0xFF_FFFF);
        assertThat(wide.alternate(0, fp)).as("seed %d fp %d, B = 2^24", seed, fp)
            .isEqualTo(wideDelta == 0 ? 1 : wideDelta);
        assertThat(two.alternate(0, fp)).as("seed %d fp %d, B = 2 (delta 0 maps to 1)", seed, fp).isEqualTo(1);
        assertThat(wide.alternate(wide.alternate(12_345, fp), fp)).isEqualTo(12_345);
      }
    }
  }

  private static void assertAddress(CkfAddressing addr, String hash, int fp, int a, int b) {
    long h = hash.startsWith("0x") ? Long.parseUnsignedLong(hash.substring(2), 16) : Long.parseUnsignedLong(hash);
    long p = addr.prepare(h);
    assertThat(CkfAddressing.fingerprint(p)).as("fingerprint").isEqualTo(fp);
    assertThat(CkfAddressing.bucketA(p)).as("bucket_a").isEqualTo(a);
    assertThat(CkfAddressing.bucketB(p)).as("bucket_b").isEqualTo(b);
  }
}
