package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.producer.ProducerMapsForBenchmarks;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Long2LongHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * The producer's exact-ownership maps ({@code ckf-cbi1.md} §3.4) against the primitive maps a user would
 * pick instead, in the same JMH run (issue 14): our lineage {@code LongLongMap} (external id → canonical
 * hash) against fastutil 8.5.19 {@code Long2LongOpenHashMap} and Agrona 1.23.1 {@code Long2LongHashMap};
 * our {@code OwnersMap} (canonical hash → owner count + resident bit) against fastutil
 * {@code Long2IntOpenHashMap} (and the two long-valued maps, which can hold the same count). Agrona: 1.23.1
 * (class files of both 1.23.1 and 2.2.4 are version 61, i.e. both run on the project's Java 17; 1.23.1 is
 * the version the brief pinned).
 *
 * <p>Every map is created at its own default (ours at the producer's initial capacities) and filled by
 * growth with {@code mappings} distinct keys of a {@link BenchmarkHashes} stream, values from another
 * stream (owners: count 1). Keys are then a FIFO window {@code [lo, lo + mappings)} of the stream.
 *
 * <ul>
 *   <li>{@link #get()}: one op = one lookup of a resident key (a shuffled sample of the fill).
 *   <li>{@link #getMiss()}: one op = one lookup of a key never inserted.
 *   <li>{@link #putRemove()}: one op = put of the next stream key plus remove of the oldest resident key,
 *       so the size never moves (the producer's steady state of Stored + Removed). A put and a remove are
 *       measured together because a pure put would grow the map across the iteration; the remove's key
 *       was inserted {@code mappings} ops earlier, so its slot is cold at 2^20.
 * </ul>
 *
 * <p>Retained bytes per mapping are printed once per setup as a {@code [bytes]} line: the used-heap delta
 * across the fill after {@code System.gc()} (MemoryMXBean heap usage, so it counts the arrays as the
 * JVM lays them out, including the growth policy's spare capacity), and for ours also the producer's
 * own array-length estimate.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class OwnershipMapBenchmark {
  static final int WINDOW = 1024;
  static final String OURS_LINEAGE = "oursLineage";
  static final String OURS_OWNERS = "oursOwners";
  static final String FASTUTIL_L2L = "fastutilLong2Long";
  static final String FASTUTIL_L2I = "fastutilLong2Int";
  static final String AGRONA_L2L = "agronaLong2Long";

  private static final int KEY_STREAM = 31;
  private static final int VALUE_STREAM = 32;
  private static final int MISS_STREAM = 33;
  private static final long MISSING = Long.MIN_VALUE;

  @Param({"65536", "1048576"})
  int mappings;

  @Param({OURS_LINEAGE, OURS_OWNERS, FASTUTIL_L2L, FASTUTIL_L2I, AGRONA_L2L})
  String impl;

  Map map;
  long keyBase;
  long valueBase;
  /** Next key index to insert; the resident window is {@code [lo, next)}. */
  long next;
  long lo;
  long[] hits;
  long[] misses;
  int hitCursor;
  int missCursor;

  /** Not thread-safe: one map, confined to its JMH thread. */
  interface Map {
    void put(long key, long value);

    long get(long key);

    void remove(long key);

    int size();

    /** Our maps' own array-length estimate of their heap bytes; -1 for the peers. */
    default long ownEstimateBytes() {
      return -1;
    }
  }

  static Map create(String impl) {
    return switch (impl) {
      case OURS_LINEAGE -> new Map() {
        final ProducerMapsForBenchmarks.Lineage m = new ProducerMapsForBenchmarks.Lineage();

        @Override public void put(long key, long value) {
          m.put(key, value);
        }

        @Override public long get(long key) {
          return m.get(key, MISSING);
        }

        @Override public void remove(long key) {
          m.remove(key);
        }

        @Override public int size() {
          return m.size();
        }

        @Override public long ownEstimateBytes() {
          return m.footprintBytes();
        }
      };
      case OURS_OWNERS -> new Map() {
        final ProducerMapsForBenchmarks.Owners m = new ProducerMapsForBenchmarks.Owners();

        @Override public void put(long key, long value) {
          m.addOwner(key);
        }

        @Override public long get(long key) {
          return m.owners(key);
        }

        @Override public void remove(long key) {
          m.removeOwner(key);
        }

        @Override public int size() {
          return m.size();
        }

        @Override public long ownEstimateBytes() {
          return m.footprintBytes();
        }
      };
      case FASTUTIL_L2L -> new Map() {
        final Long2LongOpenHashMap m = new Long2LongOpenHashMap();

        {
          m.defaultReturnValue(MISSING);
        }

        @Override public void put(long key, long value) {
          m.put(key, value);
        }

        @Override public long get(long key) {
          return m.get(key);
        }

        @Override public void remove(long key) {
          m.remove(key);
        }

        @Override public int size() {
          return m.size();
        }
      };
      case FASTUTIL_L2I -> new Map() {
        final Long2IntOpenHashMap m = new Long2IntOpenHashMap();

        @Override public void put(long key, long value) {
          m.addTo(key, 1);
        }

        @Override public long get(long key) {
          return m.get(key);
        }

        @Override public void remove(long key) {
          m.remove(key);
        }

        @Override public int size() {
          return m.size();
        }
      };
      case AGRONA_L2L -> new Map() {
        final Long2LongHashMap m = new Long2LongHashMap(MISSING);

        @Override public void put(long key, long value) {
          m.put(key, value);
        }

        @Override public long get(long key) {
          return m.get(key);
        }

        @Override public void remove(long key) {
          m.remove(key);
        }

        @Override public int size() {
          return m.size();
        }
      };
      default -> throw new IllegalArgumentException("unknown impl " + impl);
    };
  }

  @Setup
  public void setUp() {
    keyBase = BenchmarkHashes.stream(KEY_STREAM);
    valueBase = BenchmarkHashes.stream(VALUE_STREAM);
    long before = usedHeapAfterGc();
    map = create(impl);
    for (long i = 0; i < mappings; i++) {
      map.put(key(i), BenchmarkHashes.at(valueBase + i));
    }
    long after = usedHeapAfterGc();
    next = mappings;
    lo = 0;
    if (map.size() != mappings) {
      throw new IllegalStateException(map.size() + " mappings, wanted " + mappings);
    }
    int pool = Math.min(mappings, CuckooTableFixture.POOL);
    hits = new long[pool];
    int stride = mappings / pool;
    for (int i = 0; i < pool; i++) {
      hits[i] = key((long) i * stride);
    }
    CuckooTableFixture.shuffle(hits, new SplittableRandom(mappings));
    misses = new long[pool];
    for (int i = 0; i < pool; i++) {
      misses[i] = BenchmarkHashes.at(BenchmarkHashes.stream(MISS_STREAM) + i);
    }
    for (long h : hits) {
      if (map.get(h) == MISSING || map.get(h) == 0) {
        throw new IllegalStateException("resident key " + Long.toHexString(h) + " not found");
      }
    }
    String own = map.ownEstimateBytes() < 0 ? ""
        : String.format(Locale.ROOT, " footprintEstimatePerMapping=%.2f", (double) map.ownEstimateBytes() / mappings);
    System.out.printf(Locale.ROOT, "%n[bytes] impl=%s mappings=%d retainedHeapDelta=%d bytesPerMapping=%.2f%s%n",
        impl, mappings, after - before, (double) (after - before) / mappings, own);
  }

  private long key(long index) {
    return BenchmarkHashes.at(keyBase + index);
  }

  static long usedHeapAfterGc() {
    MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      used = Math.min(used, mx.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public long get() {
    long[] pool = hits;
    int c = hitCursor;
    long acc = 0;
    for (int i = 0; i < WINDOW; i++) {
      acc += map.get(pool[c + i]);
    }
    c += WINDOW;
    hitCursor = c >= pool.length ? 0 : c;
    return acc;
  }

  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public long getMiss() {
    long[] pool = misses;
    int c = missCursor;
    long acc = 0;
    for (int i = 0; i < WINDOW; i++) {
      acc += map.get(pool[c + i]);
    }
    c += WINDOW;
    missCursor = c >= pool.length ? 0 : c;
    return acc;
  }

  /**
   * Put of a fresh key and remove of the oldest. Note the {@link #get()} sample is of the initial fill:
   * this benchmark shifts the window, so it has its own fork per parameter set and never runs before
   * {@code get} in the same fork.
   */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int putRemove() {
    long n = next;
    long l = lo;
    for (int i = 0; i < WINDOW; i++) {
      map.put(key(n), BenchmarkHashes.at(valueBase + n));
      map.remove(key(l));
      n++;
      l++;
    }
    next = n;
    lo = l;
    return map.size();
  }
}
