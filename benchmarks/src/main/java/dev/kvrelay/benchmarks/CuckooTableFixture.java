package dev.kvrelay.benchmarks;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CkfSizing;
import dev.kvrelay.ckf.CuckooTable;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Not thread-safe: one JMH thread's {@link CuckooTable} filled to an exact slot load, with the hash pools
 * and the in-flight batch ring of {@link CuckooTableBenchmark} (see there for the method).
 */
@State(Scope.Thread)
public abstract class CuckooTableFixture {
  /** Hashes per measured loop of the lookup and pair benchmarks. */
  static final int WINDOW = 1024;
  /** Largest hit / fresh pool. */
  static final int POOL = 1 << 20;
  /** Largest fraction of the slots the pure-operation ring may add on top of {@code load}. */
  static final double RING_BAND = 0.01;
  /** Batch size K of the pure-operation ring (divides {@link #POOL}). */
  static final int RING_OPS = 64;

  private static final int RESIDENT_STREAM = 1;
  private static final int FRESH_STREAM = 2;

  /** Bucket count B: cache-resident, default pool (E = 1 Mi), CBI1 maximum. */
  @Param({"4096", "524288", "16777216"})
  int buckets;

  /** Fraction of the {@code 4·B} slots occupied. */
  @Param({"0.5", "0.8", "0.95"})
  double load;

  CuckooTable table;
  int targetSlots;
  /** Resident hashes, shuffled; length a multiple of {@link #WINDOW}. */
  long[] hits;
  /** Hashes never inserted by the fill, in stream order; length {@link #POOL}. */
  long[] fresh;
  int hitCursor;
  int freshCursor;

  /** Ring length R. */
  int ringBatches;
  /** The hashes of each ring slot's batch ({@code K} per slot). */
  long[] ringHashes;
  /** Whether each hash of each ring slot was placed (a failed insert must not be removed). */
  boolean[] ringPlaced;
  int ringOldest;
  int ringCount;
  int freshRingCursor;
  long ringInserts;
  long ringInsertFailures;

  @Setup
  public void setUp() throws CkfConfigException {
    table = CuckooTable.create(CkfFormat.withDefaultSeed(buckets), CkfSizing.DEFAULT_MAX_KICKS);
    targetSlots = (int) Math.round(load * 4.0 * buckets);
    int poolSize = Math.min(POOL, targetSlots) & -WINDOW;
    hits = fill(table, targetSlots, poolSize);
    shuffle(hits, new SplittableRandom(buckets ^ Double.doubleToLongBits(load)));

    fresh = new long[POOL];
    long freshStart = BenchmarkHashes.stream(FRESH_STREAM);
    for (int i = 0; i < POOL; i++) {
      fresh[i] = BenchmarkHashes.at(freshStart + i);
    }

    if (table.occupiedSlots() != targetSlots) {
      throw new IllegalStateException(table.occupiedSlots() + " slots occupied, wanted " + targetSlots);
    }
    for (long h : hits) {
      if (!table.contains(h)) {
        throw new IllegalStateException("resident hash " + Long.toHexString(h) + " not found");
      }
    }
    int falsePositives = 0;
    for (long h : fresh) {
      if (table.contains(h)) {
        falsePositives++;
      }
    }
    if (falsePositives > POOL / 1000) {
      throw new IllegalStateException(falsePositives + " false positives in " + POOL + " fresh hashes");
    }

    ringBatches = ringBatches();
    ringHashes = new long[ringBatches * RING_OPS];
    ringPlaced = new boolean[ringBatches * RING_OPS];
  }

  /**
   * Ring length R: by default {@code max(2, floor(1 % · 4B / K))}, so a removed hash was inserted long
   * enough ago for its buckets to have left the caches while the load rises by at most 1 %.
   */
  int ringBatches() {
    return (int) Math.max(2, (long) (RING_BAND * 4.0 * buckets) / RING_OPS);
  }

  /**
   * Inserts distinct hashes of the resident stream until {@code target} slots are occupied; returns an
   * even sample of {@code poolSize} of the placed hashes (insertion order). Failed inserts leave the
   * table unchanged and are skipped; too many of them mean the load is unreachable.
   */
  static long[] fill(CuckooTable table, int target, int poolSize) {
    long[] pool = new long[poolSize];
    int stride = Math.max(1, target / Math.max(1, poolSize));
    long index = BenchmarkHashes.stream(RESIDENT_STREAM);
    int placed = 0;
    int sampled = 0;
    long failures = 0;
    while (placed < target) {
      long h = BenchmarkHashes.at(index++);
      if (table.insert(h, CuckooTable.IGNORE_WRITES)) {
        if (placed % stride == 0 && sampled < poolSize) {
          pool[sampled++] = h;
        }
        placed++;
      } else if (++failures > 1000 + target / 100) {
        throw new IllegalStateException("load unreachable: " + failures + " failed inserts at "
            + placed + " / " + target + " slots");
      }
    }
    if (sampled != poolSize) {
      throw new IllegalStateException("sampled " + sampled + " of " + poolSize + " pool hashes");
    }
    return pool;
  }

  static void shuffle(long[] a, SplittableRandom r) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      long t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /**
   * Inserts the next {@code K} fresh hashes as a new ring batch; returns how many were placed. Failed
   * inserts ({@code CapacityExhausted}) count as done operations and are remembered as not placed.
   */
  final int insertBatch() {
    int base = ringSlot(ringOldest + ringCount) * RING_OPS;
    long[] pool = fresh;
    long[] hashes = ringHashes;
    boolean[] placedFlags = ringPlaced;
    int c = freshRingCursor;
    int placed = 0;
    for (int i = 0; i < RING_OPS; i++) {
      long h = pool[c];
      c = c + 1 == pool.length ? 0 : c + 1;
      boolean ok = table.insert(h, CuckooTable.IGNORE_WRITES);
      hashes[base + i] = h;
      placedFlags[base + i] = ok;
      if (ok) {
        placed++;
      }
    }
    freshRingCursor = c;
    ringCount++;
    ringInserts += RING_OPS;
    ringInsertFailures += RING_OPS - placed;
    return placed;
  }

  /**
   * Inserts a new ring batch of {@code K} placed hashes, skipping fresh hashes whose insert fails, so the
   * batch's removals are all real deletes.
   */
  final void insertPlacedBatch() {
    int base = ringSlot(ringOldest + ringCount) * RING_OPS;
    for (int i = 0; i < RING_OPS; i++) {
      long h = nextRingHash();
      while (!table.insert(h, CuckooTable.IGNORE_WRITES)) {
        ringInsertFailures++;
        h = nextRingHash();
      }
      ringHashes[base + i] = h;
      ringPlaced[base + i] = true;
    }
    ringCount++;
  }

  private long nextRingHash() {
    long h = fresh[freshRingCursor];
    freshRingCursor = freshRingCursor + 1 == fresh.length ? 0 : freshRingCursor + 1;
    ringInserts++;
    return h;
  }

  private int ringSlot(int index) {
    return index >= ringBatches ? index - ringBatches : index;
  }

  /** Removes the placed hashes of the oldest ring batch; returns how many were removed. */
  final int removeOldestBatch() {
    if (ringCount == 0) {
      throw new IllegalStateException("ring is empty");
    }
    int slot = ringOldest;
    long[] hashes = ringHashes;
    boolean[] placedFlags = ringPlaced;
    int base = slot * RING_OPS;
    int removed = 0;
    for (int i = 0; i < RING_OPS; i++) {
      if (placedFlags[base + i] && table.remove(hashes[base + i], CuckooTable.IGNORE_WRITES)) {
        removed++;
      }
    }
    ringOldest = slot + 1 == ringBatches ? 0 : slot + 1;
    ringCount--;
    return removed;
  }

  /** Checks that the table is at the fill load plus at most the in-flight ring batches. */
  @TearDown(Level.Iteration)
  public void checkLoad() {
    int inFlightMax = ringCount * RING_OPS;
    int occupied = table.occupiedSlots();
    if (occupied < targetSlots || occupied > targetSlots + inFlightMax) {
      throw new IllegalStateException(occupied + " slots occupied, expected " + targetSlots + " + at most "
          + inFlightMax + " in flight");
    }
  }

  /** Reports the capacity failures of the ring inserts (part of the pure-insert work near 95 %). */
  @TearDown
  public void reportRingFailures() {
    if (ringInserts > 0) {
      System.out.printf(java.util.Locale.ROOT, "%n[ring] B=%d load=%s: %d of %d inserts failed (%.4f %%)%n",
          buckets, load, ringInsertFailures, ringInserts, 100.0 * ringInsertFailures / ringInserts);
    }
  }
}
