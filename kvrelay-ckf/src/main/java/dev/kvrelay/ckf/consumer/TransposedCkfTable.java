package dev.kvrelay.ckf.consumer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Thread-safe under a single-writer-per-lane contract: B buckets × 16 lanes of packed CKF words, stored
 * bucket-major and lane-minor (word index {@code bucket·16 + lane}), read by any number of query threads.
 *
 * <p>Every word is read and written with opaque (relaxed, untorn) access. Lane readiness is a 16-bit mask:
 * a lane's writer publishes its ready bit with release semantics after storing a complete snapshot, and a
 * query loads the mask once with acquire semantics. There is no seqlock and no retry: a delta that writes
 * several buckets is not atomic for readers, so a concurrent query may observe a mixture of old and new
 * buckets of one lane (the weak-read contract of ckf-cbi1.md §7). Probing neither allocates nor locks.
 */
public final class TransposedCkfTable {
  /** Number of lanes (one bit each in a probe mask). */
  public static final int LANES = 16;
  /** Mask of all lanes. */
  public static final int ALL_LANES = (1 << LANES) - 1;

  private static final long LOW_BITS = 0x0001_0001_0001_0001L;
  private static final long HIGH_BITS = 0x8000_8000_8000_8000L;
  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle READY;

  static {
    try {
      READY = MethodHandles.lookup().findVarHandle(TransposedCkfTable.class, "readyLanes", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long[] words;
  private final int bucketCount;
  private final int bucketMask;
  /** Accessed only through {@link #READY}. */
  @SuppressWarnings("unused")
  private int readyLanes;

  private TransposedCkfTable(int bucketCount) {
    this.bucketCount = bucketCount;
    this.bucketMask = bucketCount - 1;
    this.words = new long[bucketCount * LANES];
  }

  /** An all-empty table sized for {@code format} (16·B words, no lane ready). */
  public static TransposedCkfTable of(CkfFormat format) {
    return new TransposedCkfTable(format.bucketCount());
  }

  /** Number of buckets B. */
  public int bucketCount() {
    return bucketCount;
  }

  /**
   * Touches every cache line of both candidate buckets of {@code packedAddress} (opaque reads) and returns
   * a value derived from them, so that a caller can issue the loads of several independent positions
   * before depending on any of them: the memory system then overlaps their misses.
   */
  long touch(long packedAddress) {
    return touchBucket(CkfAddressing.bucketA(packedAddress)) ^ touchBucket(CkfAddressing.bucketB(packedAddress));
  }

  /**
   * Like {@link #touch(long)}, but only what {@link #probe(long, int)} of {@code lanes} reads: with fewer
   * than {@link #WHOLE_BUCKET_MIN_LANES} lanes, each lane's word in both buckets (one or two lines instead
   * of six), otherwise all of both buckets.
   */
  long touch(long packedAddress, int lanes) {
    int requested = lanes & ALL_LANES;
    if (Integer.bitCount(requested) >= WHOLE_BUCKET_MIN_LANES) {
      return touch(packedAddress);
    }
    int baseA = (CkfAddressing.bucketA(packedAddress) & bucketMask) * LANES;
    int baseB = (CkfAddressing.bucketB(packedAddress) & bucketMask) * LANES;
    long[] w = words;
    long sink = 0;
    for (int remaining = requested; remaining != 0; remaining &= remaining - 1) {
      int lane = Integer.numberOfTrailingZeros(remaining);
      sink ^= (long) WORDS.getOpaque(w, baseA + lane) ^ (long) WORDS.getOpaque(w, baseB + lane);
    }
    return sink;
  }

  /**
   * Words 0, 8 and 15 of a bucket. Its 16 words (128 bytes) start at a multiple of 8 bytes (the array
   * header is 16 bytes), so they straddle three 64-byte lines unless the run happens to be line-aligned;
   * these three words sit on every line of the run for any 8-byte-aligned start (words 0 and 8 alone left
   * the line of the last lanes to miss later, inside the probe: measured −0.15 µs all-full and −0.8 to
   * −1.1 µs staggered on the DRAM query).
   */
  private long touchBucket(int bucket) {
    int base = (bucket & bucketMask) * LANES;
    long[] w = words;
    return (long) WORDS.getOpaque(w, base) ^ (long) WORDS.getOpaque(w, base + LANES / 2)
        ^ (long) WORDS.getOpaque(w, base + LANES - 1);
  }

  /** The word of {@code lane} in {@code bucket} (opaque read). */
  public long load(int bucket, int lane) {
    return (long) WORDS.getOpaque(words, bucket * LANES + lane);
  }

  /** Stores a word (opaque write); only the lane's single writer may call this. */
  void store(int bucket, int lane, long word) {
    WORDS.setOpaque(words, bucket * LANES + lane, word);
  }

  /** The ready-lane mask, loaded with acquire semantics. */
  public int readyLanes() {
    return (int) READY.getAcquire(this);
  }

  /** Sets the lane's ready bit with release semantics, publishing every word stored before. */
  void publishReady(int lane) {
    int unused = (int) READY.getAndBitwiseOrRelease(this, 1 << lane);
  }

  /** Clears the lane's ready bit (volatile read-modify-write, before any following store). */
  void retireReady(int lane) {
    int unused = (int) READY.getAndBitwiseAnd(this, ~(1 << lane));
  }

  /**
   * The 16-bit probe mask of a packed address (from {@link CkfAddressing#prepare(long)} of this table's
   * format): bit {@code lane} is set iff the fingerprint sits in the lane's word of bucket A or bucket B.
   */
  public int probe(long packedAddress) {
    return probe(packedAddress, ALL_LANES);
  }

  /**
   * Like {@link #probe(long)}, but examines only the lanes in {@code lanes}; other bits of the result are 0.
   * Bucket indexes are masked to the table size, so a foreign address cannot index out of range.
   */
  public int probe(long packedAddress, int lanes) {
    int requested = lanes & ALL_LANES;
    long pattern = pattern(CkfAddressing.fingerprint(packedAddress));
    int bucketA = CkfAddressing.bucketA(packedAddress);
    int bucketB = CkfAddressing.bucketB(packedAddress);
    if (Integer.bitCount(requested) < WHOLE_BUCKET_MIN_LANES) {
      return requested & probeLanesInBothBuckets(bucketA, bucketB, pattern, requested);
    }
    // Many lanes: one pass over bucket A, then bucket B only for the requested lanes still missing (most
    // present elements sit in their first bucket).
    int hits = requested & probeAllLanes(bucketA, pattern);
    int missing = requested & ~hits;
    if (missing != 0) {
      hits |= missing
          & (Integer.bitCount(missing) < WHOLE_BUCKET_MIN_LANES
              ? probeLanesInBucket(bucketB, pattern, missing)
              : probeAllLanes(bucketB, pattern));
    }
    return hits;
  }

  /**
   * Requested-lane count from which one pass over all 16 lane words of a bucket beats visiting the requested
   * lanes one by one (measured with the 16-lane, 64-position query fixtures).
   */
  static final int WHOLE_BUCKET_MIN_LANES = 6;

  /** The fingerprint repeated in all four 16-bit slots. */
  private static long pattern(int fingerprint) {
    return (fingerprint & 0xFFFFL) * LOW_BITS;
  }

  /**
   * All 16 lanes of one bucket: one pass over its contiguous 16-word (128-byte) run, without per-lane
   * branches. Lane {@code l}'s SWAR zero-slot flags are shifted onto bits {@code l, 16+l, 32+l, 48+l} and
   * two folds gather them.
   */
  private int probeAllLanes(int bucket, long pattern) {
    long[] w = words;
    int base = (bucket & bucketMask) * LANES;
    long flags = 0;
    for (int lane = 0; lane < LANES; lane++) {
      long x = (long) WORDS.getOpaque(w, base + lane) ^ pattern;
      flags |= ((x - LOW_BITS) & ~x & HIGH_BITS) >>> (15 - lane);
    }
    return gather(flags);
  }

  /** The lanes of {@code lanes} only, one word each; other bits of the result are 0. */
  private int probeLanesInBucket(int bucket, long pattern, int lanes) {
    long[] w = words;
    int base = (bucket & bucketMask) * LANES;
    long flags = 0;
    for (int remaining = lanes & ALL_LANES; remaining != 0; remaining &= remaining - 1) {
      int lane = Integer.numberOfTrailingZeros(remaining);
      long x = (long) WORDS.getOpaque(w, base + lane) ^ pattern;
      flags |= ((x - LOW_BITS) & ~x & HIGH_BITS) >>> (15 - lane);
    }
    return gather(flags);
  }

  /**
   * The lanes of {@code lanes} only, each looked up in both buckets with no branch on the answer of bucket
   * A (with few lanes, a data-dependent branch costs more than the second word); other bits are 0.
   */
  private int probeLanesInBothBuckets(int bucketA, int bucketB, long pattern, int lanes) {
    long[] w = words;
    int baseA = (bucketA & bucketMask) * LANES;
    int baseB = (bucketB & bucketMask) * LANES;
    long flags = 0;
    for (int remaining = lanes & ALL_LANES; remaining != 0; remaining &= remaining - 1) {
      int lane = Integer.numberOfTrailingZeros(remaining);
      long x = (long) WORDS.getOpaque(w, baseA + lane) ^ pattern;
      long y = (long) WORDS.getOpaque(w, baseB + lane) ^ pattern;
      flags |= ((((x - LOW_BITS) & ~x) | ((y - LOW_BITS) & ~y)) & HIGH_BITS) >>> (15 - lane);
    }
    return gather(flags);
  }

  /**
   * Folds per-lane flags (lane {@code l} on any of bits {@code l, 16+l, 32+l, 48+l}) into a 16-bit mask.
   * The per-word test {@code (v − 0x0001…) & ~v & 0x8000…} is non-zero iff some 16-bit slot of {@code v} is
   * zero (exact as a yes/no answer), i.e. iff some slot of the word equals the fingerprint.
   */
  private static int gather(long flags) {
    long folded = flags | (flags >>> 32);
    return (int) (folded | (folded >>> 16)) & ALL_LANES;
  }
}
