package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.CkfConfigException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Our {@link dev.kvrelay.ckf.CuckooTable} against the Java cuckoo filters a user would pick instead, in
 * the same JMH run with the same keys, table sizes and loads as {@link CuckooTableBenchmark} (issue 14):
 * FastFilter-Java 1.0.2 {@code Cuckoo16} and {@code CuckooPlus16}, and cuckoofilter4j 1.0.2. Every filter
 * has {@code 4·B} 16-bit fingerprint slots; the bits per key of each are printed as a {@code [bits]} line
 * per setup (see {@link PeerFilterFixture}).
 *
 * <ul>
 *   <li>{@link #containsHit()} / {@link #containsMiss()}: as in {@link CuckooTableBenchmark}, one op = one
 *       lookup, all four implementations.
 *   <li>{@link Fill#fillToLoad()}: one op = filling an empty filter to {@code load} (an untimed
 *       {@code Level.Invocation} setup allocates the empty filter). The ratio report multiplies by the key
 *       count: the <em>average</em> insert cost from empty to {@code load}, not the marginal cost at
 *       {@code load} that {@code CuckooTableBenchmark.PureInsert} measures. This form is used because the
 *       FastFilter filters cannot delete, so no ring can hold their load fixed.
 *   <li>{@link Pair#insertRemovePair()}: one op = insert a fresh key and remove it again, only ours and
 *       cuckoofilter4j: FastFilter-Java's {@code Cuckoo16} / {@code CuckooPlus16} have no remove
 *       ({@code Filter.supportsRemove()} is false), so they are absent from this benchmark.
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PeerFilterBenchmark extends PeerFilterFixture {

  @Param({PeerFilters.CKF, PeerFilters.CUCKOO16, PeerFilters.CUCKOO_PLUS16, PeerFilters.CUCKOOFILTER4J})
  String impl;

  @Override
  String impl() {
    return impl;
  }

  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int containsHit() {
    long[] pool = hits;
    int c = hitCursor;
    int found = 0;
    for (int i = 0; i < WINDOW; i++) {
      if (filter.contains(pool[c + i])) {
        found++;
      }
    }
    c += WINDOW;
    hitCursor = c == pool.length ? 0 : c;
    return found;
  }

  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int containsMiss() {
    long[] pool = fresh;
    int c = freshCursor;
    int found = 0;
    for (int i = 0; i < WINDOW; i++) {
      if (filter.contains(pool[c + i])) {
        found++;
      }
    }
    c += WINDOW;
    freshCursor = c == pool.length ? 0 : c;
    return found;
  }

  /** Insert then remove of a fresh key; only implementations with a delete. */
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Fork(1)
  @Warmup(iterations = 3, time = 1)
  @Measurement(iterations = 5, time = 1)
  public static class Pair extends PeerFilterFixture {
    /** FastFilter-Java's cuckoo filters cannot remove: not listed. */
    @Param({PeerFilters.CKF, PeerFilters.CUCKOOFILTER4J})
    String impl;

    @Override
    String impl() {
      return impl;
    }

    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public int insertRemovePair() {
      long[] pool = fresh;
      int c = freshCursor;
      int placed = 0;
      for (int i = 0; i < WINDOW; i++) {
        long h = pool[c + i];
        if (filter.insert(h)) {
          filter.remove(h);
          placed++;
        }
      }
      c += WINDOW;
      freshCursor = c == pool.length ? 0 : c;
      return placed;
    }
  }

  /** Not thread-safe: a fresh empty filter per invocation, filled by the measured call. */
  @State(Scope.Thread)
  public static class Fill {
    @Param({"4096", "524288", "16777216"})
    int buckets;

    @Param({"0.5", "0.8", "0.95"})
    double load;

    @Param({PeerFilters.CKF, PeerFilters.CUCKOO16, PeerFilters.CUCKOO_PLUS16, PeerFilters.CUCKOOFILTER4J})
    String impl;

    PeerFilters.Filter filter;
    int targetKeys;
    long[] sample = new long[1];

    @Setup(Level.Invocation)
    public void empty() throws CkfConfigException {
      filter = null;
      filter = PeerFilters.create(impl, buckets);
      targetKeys = (int) Math.round(load * 4.0 * buckets);
    }

    /** One op = one fill from empty to {@code load}; inserts/s = score × round(load·4·B). */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Fork(1)
    @Warmup(iterations = 3, time = 1)
    @Measurement(iterations = 5, time = 1)
    public long fillToLoad() {
      return PeerFilterFixture.fill(filter, targetKeys, sample);
    }
  }
}
