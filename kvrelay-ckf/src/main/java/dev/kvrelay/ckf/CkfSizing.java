package dev.kvrelay.ckf;

import dev.kvrelay.api.CkfFormat;

/**
 * Stateless and thread-safe CKF sizing rules: the bucket count for an expected number of unique
 * blocks, and the kick budget bounds.
 *
 * <p>{@code B = nextPow2(max(2, floor((5·E + 15) / 16)))}: at most 80 % load of the {@code 4·B} slots
 * before rounding up. All arguments are unsigned 64-bit values.
 */
public final class CkfSizing {
  /** Largest {@code E} whose bucket count fits CBI1 ({@code 2^24} buckets). */
  public static final long MAX_EXPECTED_BLOCKS = 53_687_091L;
  /** Default relocation budget of a full insert. */
  public static final int DEFAULT_MAX_KICKS = 500;
  /** Largest accepted {@code max_kicks}. */
  public static final int MAX_KICKS = 4096;
  /** Message of {@link CkfConfigException.Reason#EXPECTED_CAPACITY_ZERO}, as upstream words it. */
  public static final String EXPECTED_CAPACITY_ZERO_MESSAGE = "expected_blocks_per_dc must be greater than zero";

  /** Largest E for which {@code 5·E + 15} fits in an unsigned 64-bit value. */
  private static final long MAX_E_BEFORE_OVERFLOW = Long.divideUnsigned(-1L - 15, 5);

  private CkfSizing() {}

  /**
   * The bucket count for {@code expectedBlocks} (unsigned), not yet checked against the CBI1 maximum;
   * e.g. {@code 33 554 432} for {@code 53 687 092}.
   *
   * @throws CkfConfigException {@code EXPECTED_CAPACITY_ZERO} for 0, {@code CAPACITY_OVERFLOW} when the
   *     arithmetic overflows 64 bits
   */
  public static long bucketCount(long expectedBlocks) throws CkfConfigException {
    if (expectedBlocks == 0) {
      throw new CkfConfigException(CkfConfigException.Reason.EXPECTED_CAPACITY_ZERO, EXPECTED_CAPACITY_ZERO_MESSAGE);
    }
    if (Long.compareUnsigned(expectedBlocks, MAX_E_BEFORE_OVERFLOW) > 0) {
      throw new CkfConfigException(CkfConfigException.Reason.CAPACITY_OVERFLOW,
          "expected_blocks_per_dc " + Long.toUnsignedString(expectedBlocks) + " overflows the bucket count");
    }
    long raw = Long.divideUnsigned(expectedBlocks * 5 + 15, 16);
    long atLeastTwo = Long.compareUnsigned(raw, 2) < 0 ? 2 : raw;
    if (Long.compareUnsigned(atLeastTwo, 1L << 62) > 0) {
      throw new CkfConfigException(CkfConfigException.Reason.CAPACITY_OVERFLOW,
          "expected_blocks_per_dc " + Long.toUnsignedString(expectedBlocks) + " overflows the bucket count");
    }
    return Long.bitCount(atLeastTwo) == 1 ? atLeastTwo : Long.highestOneBit(atLeastTwo) << 1;
  }

  /**
   * The bucket count for {@code expectedBlocks}, additionally rejected when it exceeds the CBI1 maximum
   * {@link CkfFormat#MAX_BUCKET_COUNT} (i.e. {@code E > 53 687 091}).
   *
   * @throws CkfConfigException as {@link #bucketCount(long)}, or {@code BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM}
   */
  public static int publishableBucketCount(long expectedBlocks) throws CkfConfigException {
    long b = bucketCount(expectedBlocks);
    if (b > CkfFormat.MAX_BUCKET_COUNT) {
      throw new CkfConfigException(CkfConfigException.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM,
          "expected_blocks_per_dc " + Long.toUnsignedString(expectedBlocks) + " needs " + b
              + " buckets, more than the CBI1 maximum " + CkfFormat.MAX_BUCKET_COUNT);
    }
    return (int) b;
  }

  /**
   * Checks a relocation budget for full inserts.
   *
   * @throws CkfConfigException {@code INVALID_MAX_KICKS} outside {@code 1..=4096}
   */
  public static int validateMaxKicks(int maxKicks) throws CkfConfigException {
    if (maxKicks < 1 || maxKicks > MAX_KICKS) {
      throw new CkfConfigException(CkfConfigException.Reason.INVALID_MAX_KICKS,
          "max_kicks must be in 1..=" + MAX_KICKS + ", got " + maxKicks);
    }
    return maxKicks;
  }
}
