package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.CkfConfigException;
import java.util.Locale;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Not thread-safe: one JMH thread's filter ({@link PeerFilters}) filled with the keys, sizes and loads of
 * {@link CuckooTableFixture}: the resident stream of {@link BenchmarkHashes} until {@code round(load·4·B)}
 * keys are placed (inserts a filter reports as failed are skipped, as there), a shuffled even sample of
 * them as the hit pool, the fresh stream as the miss pool. Prints one {@code [bits]} line per setup with
 * the storage bits per key, which {@code benchmarks/ratio_report.py} reads from the JMH log.
 */
@State(Scope.Thread)
public abstract class PeerFilterFixture {
  static final int WINDOW = CuckooTableFixture.WINDOW;
  static final int POOL = CuckooTableFixture.POOL;
  private static final int RESIDENT_STREAM = 1;
  private static final int FRESH_STREAM = 2;

  /** Bucket count B of 4 slots: 32 KiB, 4 MiB, 128 MiB of 16-bit fingerprints. */
  @Param({"4096", "524288", "16777216"})
  int buckets;

  @Param({"0.5", "0.8", "0.95"})
  double load;

  PeerFilters.Filter filter;
  int targetKeys;
  long[] hits;
  long[] fresh;
  int hitCursor;
  int freshCursor;

  /** The implementation ({@code impl} parameter of the concrete benchmark class). */
  abstract String impl();

  @Setup
  public void setUp() throws CkfConfigException {
    filter = PeerFilters.create(impl(), buckets);
    targetKeys = (int) Math.round(load * 4.0 * buckets);
    int poolSize = Math.min(POOL, targetKeys) & -WINDOW;
    hits = new long[poolSize];
    long failures = fill(filter, targetKeys, hits);
    CuckooTableFixture.shuffle(hits, new SplittableRandom(buckets ^ Double.doubleToLongBits(load)));
    fresh = new long[POOL];
    long freshStart = BenchmarkHashes.stream(FRESH_STREAM);
    for (int i = 0; i < POOL; i++) {
      fresh[i] = BenchmarkHashes.at(freshStart + i);
    }
    int missingHits = 0;
    for (long h : hits) {
      if (!filter.contains(h)) {
        missingHits++;
      }
    }
    int falsePositives = 0;
    for (long h : fresh) {
      if (filter.contains(h)) {
        falsePositives++;
      }
    }
    System.out.printf(Locale.ROOT,
        "%n[bits] impl=%s buckets=%d load=%s keys=%d bits=%d bitsPerKey=%.3f fillFailures=%d "
            + "falseNegatives=%d/%d falsePositives=%d/%d%n",
        impl(), buckets, load, targetKeys, filter.bits(), (double) filter.bits() / targetKeys, failures,
        missingHits, hits.length, falsePositives, POOL);
  }

  /**
   * Inserts resident-stream keys until {@code target} are placed, sampling {@code pool.length} of them
   * evenly; returns the number of failed inserts (a FastFilter failure also drops a kicked victim, which
   * shows as false negatives in the {@code [bits]} line).
   */
  static long fill(PeerFilters.Filter filter, int target, long[] pool) {
    int stride = Math.max(1, target / Math.max(1, pool.length));
    long index = BenchmarkHashes.stream(RESIDENT_STREAM);
    int placed = 0;
    int sampled = 0;
    long failures = 0;
    while (placed < target) {
      long h = BenchmarkHashes.at(index++);
      if (filter.insert(h)) {
        if (placed % stride == 0 && sampled < pool.length) {
          pool[sampled++] = h;
        }
        placed++;
      } else if (++failures > 1000 + target / 100) {
        throw new IllegalStateException("load unreachable: " + failures + " failed inserts at " + placed
            + " / " + target);
      }
    }
    return failures;
  }
}
