package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.CuckooTable;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The producer's physical cuckoo table ({@code ckf-cbi1.md} §3.1–§3.3) at a fixed slot load: ops/s of
 * insert, remove and lookup, with {@code max_kicks = 500} and the default seed.
 *
 * <p>Table sizes: {@code 2^12} buckets (32 KiB, L1/L2-resident: the "cache-resident" case), {@code 2^19}
 * (4 MiB, the default pool, L3-resident on most servers) and {@code 2^24} (128 MiB, the CBI1 maximum,
 * DRAM-bound). {@code load} is the fraction of the {@code 4·B} slots filled in {@link #setUp()} with
 * distinct random hashes (fill failures are retried with fresh hashes, so the load is exact).
 *
 * <p>Every measured loop walks a window of a large pre-generated pool (up to 2^20 hashes), advancing the
 * window each invocation, so a large table is not probed at the same few buckets over and over.
 *
 * <ul>
 *   <li>{@link #containsHit()}: resident hashes (a shuffled uniform sample of the fill).
 *   <li>{@link #containsMiss()}: hashes never inserted (false positives, about {@code 8·load/65535}, count
 *       as hits; {@link #setUp()} checks the rate is below 0.1 %).
 *   <li>{@link #insertRemovePair()}: one op = insert a fresh hash, then remove it again (if it was
 *       placed), so the load never moves. The remove hits the buckets the insert just wrote, so it is
 *       cache-hot: the pair costs about one cold insert plus a cheap delete.
 *   <li>{@link PureInsert#insert()} and {@link PureRemove#remove()}: the pure operations, measured over
 *       pre-generated batches of {@code K = 64} fresh hashes kept in a ring of {@code R} batches in
 *       flight. An invocation inserts one new batch (resp. removes the oldest batch); an untimed
 *       {@code Level.Invocation} helper removes the oldest batch (resp. inserts a new one). The pure insert
 *       keeps {@code R = 2}, so the load stays within 128 slots of {@code load} (insert cost rises steeply
 *       near 95 %, so the load must not drift). The pure remove uses {@code R = max(2, floor(1 % · 4B / K))}
 *       (2, 327 and 10 485 batches for the three sizes; load at most 1 % above {@code load}, which a
 *       delete does not care about): a removed hash was inserted {@code R − 1} batches earlier, on the
 *       {@code 2^24} table about 1.3 M bucket lines before, so its buckets have left the caches. The
 *       remove ring skips fresh hashes whose insert fails, so every measured remove is a real delete; the
 *       pure insert counts a failed insert ({@code CapacityExhausted}, the full kick budget) as an op,
 *       and prints the failure rate at the end of its fork ({@code [ring]} line).
 * </ul>
 *
 * <p>Why not a {@code Level.Iteration} refill for the pure insert: a 1 s throughput iteration performs
 * tens of millions of inserts, far more than the free slots of a {@code 2^12} or {@code 2^19} table, so the
 * table would fill up (and the number would degrade into a capacity-failure benchmark) long before the
 * next refill. Bounded batches with a per-invocation refill keep the load fixed; the price is two timer
 * reads per invocation (about 1–2 µs of work per invocation on the {@code 2^12} table), which makes the
 * cache-resident pure numbers a few percent pessimistic; the DRAM-bound ones are not affected.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CuckooTableBenchmark extends CuckooTableFixture {

  /** Lookup of resident hashes. One op = one {@code contains}. */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int containsHit() {
    long[] pool = hits;
    int c = hitCursor;
    int found = 0;
    for (int i = 0; i < WINDOW; i++) {
      if (table.contains(pool[c + i])) {
        found++;
      }
    }
    c += WINDOW;
    hitCursor = c == pool.length ? 0 : c;
    return found;
  }

  /** Lookup of hashes never inserted. One op = one {@code contains}. */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int containsMiss() {
    long[] pool = fresh;
    int c = freshCursor;
    int found = 0;
    for (int i = 0; i < WINDOW; i++) {
      if (table.contains(pool[c + i])) {
        found++;
      }
    }
    c += WINDOW;
    freshCursor = c == pool.length ? 0 : c;
    return found;
  }

  /** One op = insert a fresh hash and remove it again (the load never moves). */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int insertRemovePair() {
    long[] pool = fresh;
    int c = freshCursor;
    int placed = 0;
    for (int i = 0; i < WINDOW; i++) {
      long h = pool[c + i];
      if (table.insert(h, CuckooTable.IGNORE_WRITES)) {
        table.remove(h, CuckooTable.IGNORE_WRITES);
        placed++;
      }
    }
    c += WINDOW;
    freshCursor = c == pool.length ? 0 : c;
    return placed;
  }

  /**
   * Pure insert: one op = one insert of a fresh hash at the ring load. Before each invocation the oldest
   * batches are removed (untimed) until {@code R − 1} remain, so the measured batch fills the
   * {@code R}-th.
   */
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Fork(1)
  @Warmup(iterations = 3, time = 1)
  @Measurement(iterations = 5, time = 1)
  public static class PureInsert extends CuckooTableFixture {
    @Override
    int ringBatches() {
      return 2;
    }

    @Setup(Level.Invocation)
    public void makeRoom() {
      while (ringCount >= ringBatches) {
        removeOldestBatch();
      }
    }

    @Benchmark
    @OperationsPerInvocation(RING_OPS)
    public int insert() {
      return insertBatch();
    }
  }

  /**
   * Pure remove: one op = one remove of a hash inserted {@code R − 1} batches earlier. Before each
   * invocation new batches are inserted (untimed) until {@code R} are in flight.
   */
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Fork(1)
  @Warmup(iterations = 3, time = 1)
  @Measurement(iterations = 5, time = 1)
  public static class PureRemove extends CuckooTableFixture {
    @Setup(Level.Invocation)
    public void topUp() {
      while (ringCount < ringBatches) {
        insertPlacedBatch();
      }
    }

    @Benchmark
    @OperationsPerInvocation(RING_OPS)
    public int remove() {
      return removeOldestBatch();
    }
  }
}
