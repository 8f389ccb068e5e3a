package dev.kvrelay.ckf;

import dev.kvrelay.api.CkfFormat;

/**
 * Not thread-safe: confined to the pool actor (single writer). The producer's physical cuckoo table:
 * {@code B} packed {@code u64} buckets, partial-key addressing, splitmix64 kicks with full rollback.
 *
 * <p>Insert: lowest empty slot of bucket A, else of bucket B; else the kick phase (start-bucket coin
 * {@code next() & 1}, then up to {@code maxKicks} swaps at slot {@code next() & 3}, each followed by a
 * look for an empty slot in the evicted fingerprint's alternate bucket). A failed kick phase restores
 * every touched bucket in reverse write order and reports nothing. Every successful write is reported,
 * in write order, with the bucket's value before that write, to a {@link WriteObserver}. Mutations do
 * not allocate.
 */
public final class CuckooTable {

  /** Confined to the table's owning thread: receives each physical bucket write of a successful mutation, in write order. */
  @FunctionalInterface
  public interface WriteObserver {
    /** Bucket {@code bucket} was just overwritten; {@code previousWord} is its value before the write. */
    void bucketWritten(int bucket, long previousWord);
  }

  /** An observer that ignores every write. */
  public static final WriteObserver IGNORE_WRITES = (bucket, previousWord) -> { };

  private final CkfAddressing addressing;
  private final long[] words;
  private final SplitMix64 rng;
  private final int maxKicks;
  private final int[] logBuckets;
  private final long[] logOriginals;
  private int occupiedSlots;

  private CuckooTable(CkfAddressing addressing, int maxKicks) {
    this.addressing = addressing;
    this.words = new long[addressing.bucketCount()];
    this.rng = SplitMix64.forLane0(addressing.format().seed());
    this.maxKicks = maxKicks;
    this.logBuckets = new int[maxKicks + 1];
    this.logOriginals = new long[maxKicks + 1];
  }

  /**
   * An empty table for {@code format} with the given relocation budget; the RNG starts at the
   * format seed's lane-0 state.
   *
   * @throws CkfConfigException {@code INVALID_MAX_KICKS} unless {@code 1 <= maxKicks <= 4096}
   */
  public static CuckooTable create(CkfFormat format, int maxKicks) throws CkfConfigException {
    return create(CkfAddressing.of(format), maxKicks);
  }

  /** As {@link #create(CkfFormat, int)}, reusing an existing addressing. */
  public static CuckooTable create(CkfAddressing addressing, int maxKicks) throws CkfConfigException {
    return new CuckooTable(addressing, CkfSizing.validateMaxKicks(maxKicks));
  }

  /** The addressing (and format) of this table. */
  public CkfAddressing addressing() {
    return addressing;
  }

  /** The format of this table. */
  public CkfFormat format() {
    return addressing.format();
  }

  /** Number of buckets {@code B}. */
  public int bucketCount() {
    return words.length;
  }

  /** The relocation budget of {@link #insert(long, WriteObserver)}. */
  public int maxKicks() {
    return maxKicks;
  }

  /** Number of non-empty slots. */
  public int occupiedSlots() {
    return occupiedSlots;
  }

  /** The current word of {@code bucket} ({@code 0 <= bucket < B}). */
  public long word(int bucket) {
    return words[bucket];
  }

  /** A copy of all {@code B} words, e.g. for a snapshot. */
  public long[] copyWords() {
    return words.clone();
  }

  /** The RNG state (diagnostics and tests: a rebuilt table starts again at {@code state0}). */
  public long rngState() {
    return rng.state();
  }

  /** True if the fingerprint of {@code canonicalHash} is in either of its buckets. */
  public boolean contains(long canonicalHash) {
    // Bucket B (the delta hash) is derived only when bucket A does not hold the fingerprint.
    long mixed = addressing.mix(canonicalHash);
    int fp = CkfAddressing.fingerprintOfMix(mixed);
    int a = addressing.bucketAOfMix(mixed);
    long[] w = words;
    long pattern = PackedBucket.pattern(fp);
    return PackedBucket.containsPattern(w[a], pattern)
        || PackedBucket.containsPattern(w[addressing.alternate(a, fp)], pattern);
  }

  /**
   * Inserts one copy of {@code canonicalHash}'s fingerprint with relocation ({@link #maxKicks()}).
   *
   * @return true on success (writes reported to {@code observer}); false for {@code CapacityExhausted},
   *     in which case the table is unchanged and nothing is reported
   */
  public boolean insert(long canonicalHash, WriteObserver observer) {
    // Bucket B is derived only when bucket A is full (most inserts below the design load stop at A).
    long mixed = addressing.mix(canonicalHash);
    int fp = CkfAddressing.fingerprintOfMix(mixed);
    int a = addressing.bucketAOfMix(mixed);
    if (placeInLowestEmpty(a, fp, observer)) {
      occupiedSlots++;
      return true;
    }
    return insertAfterFullA(fp, a, addressing.alternate(a, fp), maxKicks, observer);
  }

  /**
   * As {@link #insert(long, WriteObserver)} for a hash already prepared by this table's
   * {@link CkfAddressing#prepare(long)} (the caller saves the second hashing).
   *
   * @throws IllegalArgumentException if this table's addressing could not have prepared {@code packedAddress}
   */
  public boolean insertPrepared(long packedAddress, WriteObserver observer) {
    return insertPacked(checkPrepared(packedAddress), maxKicks, observer);
  }

  /**
   * Returns {@code packed} if this table's addressing could have prepared it.
   *
   * @throws IllegalArgumentException for a foreign or corrupt address (nothing is read or written)
   */
  private long checkPrepared(long packed) {
    if (!addressing.isPrepared(packed)) {
      throw new IllegalArgumentException("not an address prepared by this table's addressing: 0x"
          + Long.toHexString(packed));
    }
    return packed;
  }

  /**
   * Relocation-free insert ({@code max_kicks = 0}): only the two candidate buckets are tried. When both
   * are full one RNG draw (the start-bucket coin) is still consumed, as upstream does.
   *
   * @return true on success; false for {@code CapacityExhausted} (nothing changed, nothing reported)
   */
  public boolean insertWithoutRelocation(long canonicalHash, WriteObserver observer) {
    return insertPacked(addressing.prepare(canonicalHash), 0, observer);
  }

  /**
   * Reads both candidate buckets of a prepared address and returns a value derived from them, changing
   * nothing. A caller touches the buckets of several independent hashes before updating any of them, so
   * that their cache misses overlap instead of queueing behind each dependent update.
   *
   * @throws IllegalArgumentException if this table's addressing could not have prepared {@code packedAddress}
   */
  public long touch(long packedAddress) {
    checkPrepared(packedAddress);
    long[] w = words;
    return w[CkfAddressing.bucketA(packedAddress)] ^ w[CkfAddressing.bucketB(packedAddress)];
  }

  private boolean insertPacked(long p, int kicks, WriteObserver observer) {
    int fp = CkfAddressing.fingerprint(p);
    int a = CkfAddressing.bucketA(p);
    if (placeInLowestEmpty(a, fp, observer)) {
      occupiedSlots++;
      return true;
    }
    return insertAfterFullA(fp, a, CkfAddressing.bucketB(p), kicks, observer);
  }

  /** Steps 2 (bucket B) to 5 of ckf-cbi1.md §3.1 for a fingerprint whose bucket A has no empty slot. */
  private boolean insertAfterFullA(int fp, int a, int b, int kicks, WriteObserver observer) {
    if (placeInLowestEmpty(b, fp, observer)) {
      occupiedSlots++;
      return true;
    }
    int bucket = (rng.next() & 1) == 0 ? a : b;
    int carried = fp;
    int writes = 0;
    for (int kick = 0; kick < kicks; kick++) {
      int slot = (int) (rng.next() & 3);
      long before = words[bucket];
      logBuckets[writes] = bucket;
      logOriginals[writes++] = before;
      words[bucket] = PackedBucket.withSlot(before, slot, carried);
      carried = PackedBucket.slot(before, slot);
      bucket = addressing.alternate(bucket, carried);
      long target = words[bucket];
      int empty = PackedBucket.firstEmpty(target);
      if (empty != PackedBucket.NONE) {
        logBuckets[writes] = bucket;
        logOriginals[writes++] = target;
        words[bucket] = PackedBucket.withSlot(target, empty, carried);
        for (int i = 0; i < writes; i++) {
          observer.bucketWritten(logBuckets[i], logOriginals[i]);
        }
        occupiedSlots++;
        return true;
      }
    }
    for (int i = writes - 1; i >= 0; i--) {
      words[logBuckets[i]] = logOriginals[i];
    }
    return false;
  }

  private boolean placeInLowestEmpty(int bucket, int fp, WriteObserver observer) {
    long before = words[bucket];
    int empty = PackedBucket.firstEmpty(before);
    if (empty == PackedBucket.NONE) {
      return false;
    }
    words[bucket] = PackedBucket.withSlot(before, empty, fp);
    observer.bucketWritten(bucket, before);
    return true;
  }

  /**
   * Removes exactly one copy of {@code canonicalHash}'s fingerprint: the first matching slot of bucket
   * A, else of bucket B. The write is reported with the bucket's previous value.
   *
   * @return false if neither bucket holds the fingerprint ({@code IndexerInvariantViolation} for the
   *     caller); the table is then unchanged
   */
  public boolean remove(long canonicalHash, WriteObserver observer) {
    long mixed = addressing.mix(canonicalHash);
    int fp = CkfAddressing.fingerprintOfMix(mixed);
    int a = addressing.bucketAOfMix(mixed);
    if (clearFirst(a, fp, observer) || clearFirst(addressing.alternate(a, fp), fp, observer)) {
      occupiedSlots--;
      return true;
    }
    return false;
  }

  /**
   * As {@link #remove(long, WriteObserver)} for a hash already prepared by this table's
   * {@link CkfAddressing#prepare(long)}.
   *
   * @throws IllegalArgumentException if this table's addressing could not have prepared {@code p}
   */
  public boolean removePrepared(long p, WriteObserver observer) {
    return removePacked(checkPrepared(p), observer);
  }

  private boolean removePacked(long p, WriteObserver observer) {
    int fp = CkfAddressing.fingerprint(p);
    if (clearFirst(CkfAddressing.bucketA(p), fp, observer) || clearFirst(CkfAddressing.bucketB(p), fp, observer)) {
      occupiedSlots--;
      return true;
    }
    return false;
  }

  private boolean clearFirst(int bucket, int fp, WriteObserver observer) {
    long before = words[bucket];
    int slot = PackedBucket.firstIndexOf(before, fp);
    if (slot == PackedBucket.NONE) {
      return false;
    }
    words[bucket] = PackedBucket.withSlot(before, slot, PackedBucket.EMPTY_SLOT);
    observer.bucketWritten(bucket, before);
    return true;
  }
}
