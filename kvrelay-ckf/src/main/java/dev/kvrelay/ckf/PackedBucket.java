package dev.kvrelay.ckf;

/**
 * Stateless and thread-safe static helpers on one CKF bucket, a {@code u64} word holding four 16-bit
 * fingerprint slots; nothing here allocates.
 *
 * <p>Slot {@code s} (0..3) occupies bits {@code [16·s, 16·s + 15]}, slot 0 being the least significant;
 * the value 0 marks an empty slot. Searches use SWAR on the whole word: a lane is zero exactly when its
 * high bit is clear in {@code ((x & 0x7FFF…) + 0x7FFF…) | x}; {@link #contains(long, int)} uses the
 * classic {@code (x − 0x0001…) & ~x & 0x8000…} test, exact for the yes/no answer.
 */
public final class PackedBucket {
  /** Slots per bucket. */
  public static final int SLOTS = 4;
  /** The empty bucket. */
  public static final long EMPTY = 0L;
  /** Fingerprint value of an empty slot. */
  public static final int EMPTY_SLOT = 0;
  /** Returned by the searching methods when nothing matches. */
  public static final int NONE = -1;

  static final long LANE_ONES = 0x0001_0001_0001_0001L;
  static final long LANE_HIGHS = 0x8000_8000_8000_8000L;
  private static final long LANE_LOWS = 0x7FFF_7FFF_7FFF_7FFFL;
  private static final int SLOT_MASK = 0xFFFF;

  private PackedBucket() {}

  /** The fingerprint in slot {@code slot} (0..3) of {@code word}; 0 if empty. */
  public static int slot(long word, int slot) {
    return (int) (word >>> (slot << 4)) & SLOT_MASK;
  }

  /** {@code word} with slot {@code slot} (0..3) set to the low 16 bits of {@code fingerprint}. */
  public static long withSlot(long word, int slot, int fingerprint) {
    int shift = slot << 4;
    return (word & ~(0xFFFFL << shift)) | ((long) (fingerprint & SLOT_MASK) << shift);
  }

  /** The word holding {@code s0..s3} in slots 0..3 (each taken modulo 2^16). */
  public static long of(int s0, int s1, int s2, int s3) {
    return (s0 & 0xFFFFL) | (s1 & 0xFFFFL) << 16 | (s2 & 0xFFFFL) << 32 | (s3 & 0xFFFFL) << 48;
  }

  /** Lowest empty slot index, or {@link #NONE} if all four slots are occupied. */
  public static int firstEmpty(long word) {
    return lowestZeroLane(word);
  }

  /**
   * Lowest slot index holding {@code fingerprint}, or {@link #NONE}. Searching for 0 finds the first
   * empty slot.
   */
  public static int firstIndexOf(long word, int fingerprint) {
    return lowestZeroLane(word ^ (LANE_ONES * (fingerprint & SLOT_MASK)));
  }

  /** True if any slot of {@code word} equals the non-zero {@code fingerprint}. */
  public static boolean contains(long word, int fingerprint) {
    return containsPattern(word, pattern(fingerprint));
  }

  /** The low 16 bits of {@code fingerprint} repeated in all four slots, for {@link #containsPattern}. */
  public static long pattern(int fingerprint) {
    return LANE_ONES * (fingerprint & SLOT_MASK);
  }

  /**
   * True if any slot of {@code word} equals the slot value repeated in {@code pattern} (from {@link #pattern(int)}
   * of a non-zero fingerprint); lets a caller testing two buckets build the pattern once.
   */
  public static boolean containsPattern(long word, long pattern) {
    long x = word ^ pattern;
    return ((x - LANE_ONES) & ~x & LANE_HIGHS) != 0;
  }

  /** Number of occupied (non-zero) slots, 0..4. */
  public static int occupancy(long word) {
    return SLOTS - Long.bitCount(zeroLanes(word));
  }

  /** True if no slot is empty. */
  public static boolean isFull(long word) {
    return zeroLanes(word) == 0;
  }

  /** High bit of every all-zero 16-bit lane of {@code x}; exact (no false lanes). */
  private static long zeroLanes(long x) {
    long t = ((x & LANE_LOWS) + LANE_LOWS) | x;
    return ~t & LANE_HIGHS;
  }

  private static int lowestZeroLane(long x) {
    long z = zeroLanes(x);
    return z == 0 ? NONE : Long.numberOfTrailingZeros(z) >>> 4;
  }
}
