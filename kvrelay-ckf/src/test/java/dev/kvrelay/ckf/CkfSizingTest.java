package dev.kvrelay.ckf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** vectors.md §4: bucket count B = nextPow2(max(2, floor((5E + 15) / 16))). */
class CkfSizingTest {

  @ParameterizedTest(name = "E={0} -> B={1}")
  @CsvSource({
    "1, 2", // U
    "16, 8", // U
    "1048576, 524288", // U (default E)
    "32, 16", // C
    "64, 32", // C
    "65536, 32768", // C
    "10000000, 4194304", // C
    "53687091, 16777216", // C (largest accepted)
  })
  void vectorBucketCounts(long e, long b) throws CkfConfigException {
    assertThat(CkfSizing.bucketCount(e)).isEqualTo(b);
    assertThat(CkfSizing.publishableBucketCount(e)).isEqualTo((int) b);
  }

  @Test
  void vector53687092NeedsTwoToTheTwentyFiveAndIsRejected() throws CkfConfigException {
    assertThat(CkfSizing.bucketCount(53_687_092L)).isEqualTo(33_554_432L);
    assertThatThrownBy(() -> CkfSizing.publishableBucketCount(53_687_092L))
        .isInstanceOfSatisfying(CkfConfigException.class,
            e -> assertThat(e.reason()).isEqualTo(CkfConfigException.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM));
    assertThat(CkfSizing.MAX_EXPECTED_BLOCKS).isEqualTo(53_687_091L);
  }

  @Test
  void vectorZeroIsExpectedCapacityZeroWithUpstreamMessage() {
    assertThatThrownBy(() -> CkfSizing.bucketCount(0))
        .isInstanceOfSatisfying(CkfConfigException.class, e -> {
          assertThat(e.reason()).isEqualTo(CkfConfigException.Reason.EXPECTED_CAPACITY_ZERO);
          assertThat(e.getMessage()).isEqualTo("expected_blocks_per_dc must be greater than zero");
        });
  }

  @ParameterizedTest
  @ValueSource(longs = {-1L, 0x3333_3333_3333_3331L, Long.MIN_VALUE})
  void arithmeticOverflowIsCapacityOverflow(long e) {
    assertThatThrownBy(() -> CkfSizing.bucketCount(e))
        .isInstanceOfSatisfying(CkfConfigException.class,
            ex -> assertThat(ex.reason()).isEqualTo(CkfConfigException.Reason.CAPACITY_OVERFLOW));
  }

  @Test
  void largestNonOverflowingCapacityIsAccepted() throws CkfConfigException {
    // 5E + 15 = 2^64 - 1 exactly: floor(/16) = 2^60 - 1, rounded up to 2^60.
    assertThat(CkfSizing.bucketCount(0x3333_3333_3333_3330L)).isEqualTo(1L << 60);
  }

  @Test
  void bucketCountIsSmallestPowerOfTwoHoldingEightyPercentLoad() throws CkfConfigException {
    for (long e = 1; e <= 5000; e++) {
      long b = CkfSizing.bucketCount(e);
      long needed = Math.max(2, (5 * e + 15) / 16);
      assertThat(Long.bitCount(b)).isEqualTo(1);
      assertThat(b).isGreaterThanOrEqualTo(needed);
      assertThat(b == 2 || b / 2 < needed).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 4097, Integer.MIN_VALUE})
  void maxKicksOutsideOneTo4096IsRejected(int kicks) {
    assertThatThrownBy(() -> CkfSizing.validateMaxKicks(kicks))
        .isInstanceOfSatisfying(CkfConfigException.class,
            e -> assertThat(e.reason()).isEqualTo(CkfConfigException.Reason.INVALID_MAX_KICKS));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 500, 4096})
  void maxKicksInRangeIsAccepted(int kicks) throws CkfConfigException {
    assertThat(CkfSizing.validateMaxKicks(kicks)).isEqualTo(kicks);
  }
}
