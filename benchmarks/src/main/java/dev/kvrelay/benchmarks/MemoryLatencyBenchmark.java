package dev.kvrelay.benchmarks;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
 * Not thread-safe: one JMH thread's table. The memory limit of this machine at the CKF table sizes
 * (issue 14): random 8-byte loads from a {@code long[]} of {@code buckets} words (32 KiB, 4 MiB, 128 MiB:
 * the byte sizes of the {@code 2^12}, {@code 2^19} and {@code 2^24}-bucket CKF tables, whose buckets are
 * one 8-byte word each).
 *
 * <p>The table holds one random cyclic permutation (Sattolo's algorithm, fixed seed): {@code t[p]} is the
 * index of the next word, so following it visits every word once per cycle in random order and no load
 * can start before the previous one returns. {@code chaseK} walks {@code K} independent cursors spread
 * evenly along that cycle, interleaved in one loop (unrolled, cursors in locals), so up to {@code K}
 * misses are in flight: {@code chase1} gives the dependent latency (ns per miss = 10^9 / score), larger
 * {@code K} the memory-level parallelism the core can sustain (misses/s = score). One op = one load;
 * every invocation performs {@value #WINDOW} loads and the cursors carry over between invocations.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class MemoryLatencyBenchmark {
  /** Loads per invocation (divisible by every K). */
  static final int WINDOW = 1024;
  static final int MAX_CHAINS = 16;

  /** Words of 8 bytes: 32 KiB, 4 MiB, 128 MiB, as the CKF tables of that many buckets. */
  @Param({"4096", "524288", "16777216"})
  int buckets;

  long[] table;
  /** Cursor of chain j; chains start N/16 steps apart along the cycle (K ≤ 16 uses the first K). */
  int[] cursors;

  @Setup
  public void setUp() {
    int n = buckets;
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    SplittableRandom r = new SplittableRandom(0x6D656D6F72794CL ^ n);
    for (int i = n - 1; i > 0; i--) { // Sattolo: a single cycle through all n words
      int j = r.nextInt(i);
      int tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
    }
    table = new long[n];
    for (int i = 0; i < n; i++) {
      table[i] = perm[i];
    }
    cursors = new int[MAX_CHAINS];
    int p = 0;
    int spacing = n / MAX_CHAINS;
    int steps = 0;
    for (int chain = 0; chain < MAX_CHAINS; chain++) {
      cursors[chain] = p;
      for (int s = 0; s < spacing; s++) {
        p = (int) table[p];
        steps++;
      }
    }
    // one full cycle check: n more steps from 0 must return to 0 and not before
    int q = 0;
    for (int s = 1; s <= n; s++) {
      q = (int) table[q];
      if (q == 0 && s != n) {
        throw new IllegalStateException("permutation has a cycle of length " + s + " < " + n);
      }
    }
    if (q != 0 || steps != spacing * MAX_CHAINS) {
      throw new IllegalStateException("not a single cycle");
    }
  }

  /** One op = one load that depends on the previous one: ns per op = the load-to-use latency at this size. */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int chase1() {
    long[] t = table;
    int[] cursors = this.cursors;
    int c0 = cursors[0];
    for (int i = 0; i < WINDOW; i++) {
      c0 = (int) t[c0];
    }
    cursors[0] = c0;
    return c0;
  }

  /** One op = one load; 2 independent chains interleaved, so up to 2 misses are in flight. */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int chase2() {
    long[] t = table;
    int[] cursors = this.cursors;
    int c0 = cursors[0];
    int c1 = cursors[1];
    for (int i = 0; i < WINDOW / 2; i++) {
      c0 = (int) t[c0];
      c1 = (int) t[c1];
    }
    cursors[0] = c0;
    cursors[1] = c1;
    return c0 ^ c1;
  }

  /** One op = one load; 4 independent chains interleaved, so up to 4 misses are in flight. */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int chase4() {
    long[] t = table;
    int[] cursors = this.cursors;
    int c0 = cursors[0];
    int c1 = cursors[1];
    int c2 = cursors[2];
    int c3 = cursors[3];
    for (int i = 0; i < WINDOW / 4; i++) {
      c0 = (int) t[c0];
      c1 = (int) t[c1];
      c2 = (int) t[c2];
      c3 = (int) t[c3];
    }
    cursors[0] = c0;
    cursors[1] = c1;
    cursors[2] = c2;
    cursors[3] = c3;
    return c0 ^ c1 ^ c2 ^ c3;
  }

  /** One op = one load; 8 independent chains interleaved, so up to 8 misses are in flight. */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int chase8() {
    long[] t = table;
    int[] cursors = this.cursors;
    int c0 = cursors[0];
    int c1 = cursors[1];
    int c2 = cursors[2];
    int c3 = cursors[3];
    int c4 = cursors[4];
    int c5 = cursors[5];
    int c6 = cursors[6];
    int c7 = cursors[7];
    for (int i = 0; i < WINDOW / 8; i++) {
      c0 = (int) t[c0];
      c1 = (int) t[c1];
      c2 = (int) t[c2];
      c3 = (int) t[c3];
      c4 = (int) t[c4];
      c5 = (int) t[c5];
      c6 = (int) t[c6];
      c7 = (int) t[c7];
    }
    cursors[0] = c0;
    cursors[1] = c1;
    cursors[2] = c2;
    cursors[3] = c3;
    cursors[4] = c4;
    cursors[5] = c5;
    cursors[6] = c6;
    cursors[7] = c7;
    return c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7;
  }

  /** One op = one load; 16 independent chains interleaved, so up to 16 misses are in flight. */
  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int chase16() {
    long[] t = table;
    int[] cursors = this.cursors;
    int c0 = cursors[0];
    int c1 = cursors[1];
    int c2 = cursors[2];
    int c3 = cursors[3];
    int c4 = cursors[4];
    int c5 = cursors[5];
    int c6 = cursors[6];
    int c7 = cursors[7];
    int c8 = cursors[8];
    int c9 = cursors[9];
    int c10 = cursors[10];
    int c11 = cursors[11];
    int c12 = cursors[12];
    int c13 = cursors[13];
    int c14 = cursors[14];
    int c15 = cursors[15];
    for (int i = 0; i < WINDOW / 16; i++) {
      c0 = (int) t[c0];
      c1 = (int) t[c1];
      c2 = (int) t[c2];
      c3 = (int) t[c3];
      c4 = (int) t[c4];
      c5 = (int) t[c5];
      c6 = (int) t[c6];
      c7 = (int) t[c7];
      c8 = (int) t[c8];
      c9 = (int) t[c9];
      c10 = (int) t[c10];
      c11 = (int) t[c11];
      c12 = (int) t[c12];
      c13 = (int) t[c13];
      c14 = (int) t[c14];
      c15 = (int) t[c15];
    }
    cursors[0] = c0;
    cursors[1] = c1;
    cursors[2] = c2;
    cursors[3] = c3;
    cursors[4] = c4;
    cursors[5] = c5;
    cursors[6] = c6;
    cursors[7] = c7;
    cursors[8] = c8;
    cursors[9] = c9;
    cursors[10] = c10;
    cursors[11] = c11;
    cursors[12] = c12;
    cursors[13] = c13;
    cursors[14] = c14;
    cursors[15] = c15;
    return c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7 ^ c8 ^ c9 ^ c10 ^ c11 ^ c12 ^ c13 ^ c14 ^ c15;
  }
}
