package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.producer.ProducerMapsForBenchmarks;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Not thread-safe: a single-threaded command-line measurement. The longest single-call pause of the
 * producer's exact-ownership maps ({@code ckf-cbi1.md} §3.4) while they grow from an unpresized start:
 * the lineage map (created at 16 slots, as {@code CkfProducer} creates a member's) and the owner-count map
 * (created at 1024 slots, the producer's floor when {@code expectedUniqueBlocks} is 0), each filled with
 * 2^24 distinct random keys through the calls {@code CkfProducer} makes ({@code addMapping}: lookup, then
 * insert; {@code addOwner}: lookup, then insert at one owner). Run:
 *
 * <pre>java -Xmx8g -XX:+AlwaysPreTouch -cp benchmarks/target/benchmarks-all.jar \
 *   dev.kvrelay.benchmarks.MapGrowthPauseMeasurement [runs]</pre>
 *
 * <p>Each insert is timed alone, in wall time ({@link System#nanoTime()}: includes GC pauses and the
 * thread being descheduled) and in the thread's CPU time ({@link ThreadMXBean#getCurrentThreadCpuTime()}:
 * the call's own work, excluding both). Printed per map and run, for each: the longest call among the
 * first 2^20, 2^22 and 2^24 inserts, p99, p99.9 and p99.99 over all 2^24, and the three longest inserts
 * (index, time); with the wall times, the total and the collections (count, time) during the fill.
 * Also printed: the time of one {@code new long[n]} at the lineage map's final capacity (what one growth
 * step allocates; the maps have it allocated ahead on the common pool).
 */
public final class MapGrowthPauseMeasurement {
  static final int LOG_MAX = 24;
  static final int N = 1 << LOG_MAX;
  static final int[] CHECKPOINTS = {1 << 20, 1 << 22, 1 << 24};

  private MapGrowthPauseMeasurement() {}

  /** One map's insert sequence. */
  private interface Inserter {
    void insert(long key);
  }

  public static void main(String[] args) {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    System.out.println("gc: " + gcNames() + ", max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB, "
        + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    int[] nanos = new int[N];
    int[] cpu = new int[N];
    for (int run = 0; run < runs; run++) {
      long seed = 0x9E37_79B9_7F4A_7C15L * (run + 1);
      ProducerMapsForBenchmarks.Lineage lineage = new ProducerMapsForBenchmarks.Lineage();
      report("lineage", run, measure(seed, nanos, cpu, key -> lineage.put(key, key * 31)), nanos, cpu);
      check(lineage.size(), "lineage");
      ProducerMapsForBenchmarks.Lineage dropL = lineage;
      ProducerMapsForBenchmarks.Owners owners = new ProducerMapsForBenchmarks.Owners();
      report("owners", run, measure(seed + 1, nanos, cpu, owners::addOwner), nanos, cpu);
      check(owners.size(), "owners");
      if (dropL.size() < 0 || owners.size() < 0) {
        throw new AssertionError();
      }
    }
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      long[] big = new long[23_300_000];
      long t1 = System.nanoTime();
      System.out.printf(Locale.ROOT, "new long[%d] (%d MiB): %.3f ms%n", big.length, (big.length * 8L) >> 20,
          (t1 - t0) / 1e6);
    }
  }

  private static void check(int size, String name) {
    if (size != N) {
      throw new AssertionError(name + " holds " + size + " entries, expected " + N);
    }
  }

  /** Fills one map with N distinct keys (bijective mix of a seeded counter, never 0); returns total ns. */
  private static long[] measure(long seed, int[] nanos, int[] cpu, Inserter map) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long gcCount0 = gcCount();
    long gcTime0 = gcTime();
    SplittableRandom random = new SplittableRandom(seed);
    long offset = random.nextLong();
    long start = System.nanoTime();
    for (int i = 0; i < N; i++) {
      long key = ProducerMapsForBenchmarks.mix(offset + i) | 1L << 63;
      long t0 = System.nanoTime();
      long c0 = threads.getCurrentThreadCpuTime();
      map.insert(key);
      long c1 = threads.getCurrentThreadCpuTime();
      long t1 = System.nanoTime();
      nanos[i] = (int) Math.min(Integer.MAX_VALUE, t1 - t0);
      cpu[i] = (int) Math.min(Integer.MAX_VALUE, c1 - c0);
    }
    long total = System.nanoTime() - start;
    return new long[] {total, gcCount() - gcCount0, gcTime() - gcTime0};
  }

  private static void report(String name, int run, long[] totals, int[] nanos, int[] cpu) {
    System.out.println(String.format(Locale.ROOT, "%-7s run %d wall:", name, run) + stats(nanos)
        + String.format(Locale.ROOT, " total %.0f ms; gc %d collections %d ms", totals[0] / 1e6, totals[1], totals[2]));
    System.out.println(String.format(Locale.ROOT, "%-7s run %d cpu: ", name, run) + stats(cpu));
  }

  /** Longest value among the first 2^20, 2^22, 2^24 calls, percentiles and the three longest calls. */
  private static String stats(int[] nanos) {
    StringBuilder sb = new StringBuilder();
    int from = 0;
    int max = 0;
    for (int cp : CHECKPOINTS) {
      for (int i = from; i < cp; i++) {
        max = Math.max(max, nanos[i]);
      }
      from = cp;
      sb.append(String.format(Locale.ROOT, " max≤2^%d %.3f ms;", 31 - Integer.numberOfLeadingZeros(cp), max / 1e6));
    }
    int[] sorted = nanos.clone();
    Arrays.sort(sorted);
    sb.append(String.format(Locale.ROOT, " p99 %d ns; p99.9 %d ns; p99.99 %d ns; longest at insert",
        sorted[(int) (N * 0.99)], sorted[(int) (N * 0.999)], sorted[(int) (N * 0.9999)]));
    for (int i : longest(nanos, 3)) {
      sb.append(String.format(Locale.ROOT, " #%d %.3f ms", i, nanos[i] / 1e6));
    }
    sb.append(';');
    return sb.toString();
  }

  /** Indexes of the {@code k} longest pauses, longest first. */
  private static int[] longest(int[] nanos, int k) {
    int[] top = new int[k];
    Arrays.fill(top, -1);
    for (int i = 0; i < nanos.length; i++) {
      for (int j = 0; j < k; j++) {
        if (top[j] < 0 || nanos[i] > nanos[top[j]]) {
          System.arraycopy(top, j, top, j + 1, k - j - 1);
          top[j] = i;
          break;
        }
      }
    }
    return top;
  }

  private static String gcNames() {
    StringBuilder sb = new StringBuilder();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sb.append(sb.length() == 0 ? "" : "+").append(gc.getName());
    }
    return sb.toString();
  }

  private static long gcCount() {
    long c = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      c += Math.max(0, gc.getCollectionCount());
    }
    return c;
  }

  private static long gcTime() {
    long c = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      c += Math.max(0, gc.getCollectionTime());
    }
    return c;
  }
}
