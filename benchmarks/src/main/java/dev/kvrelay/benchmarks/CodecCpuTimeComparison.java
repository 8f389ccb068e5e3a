package dev.kvrelay.benchmarks;

import dev.kvrelay.spi.eventplane.EventPlaneCodec;
import dev.kvrelay.spi.eventplane.EventTopics;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * Not thread-safe: a single-threaded command-line measurement, the companion of {@link CodecBenchmark} for
 * a loaded machine. It decodes the same messages as {@link CodecBenchmark} with both decoders in
 * alternating rounds and measures <em>thread CPU time</em> rather than wall time, so CPU taken by other
 * processes does not land on one side only. It prints the median ns per message of each decoder and their
 * ratio. Run:
 *
 * <pre>java -cp benchmarks/target/benchmarks-all.jar dev.kvrelay.benchmarks.CodecCpuTimeComparison</pre>
 */
public final class CodecCpuTimeComparison {
  private static final int ROUNDS = 41;
  private static final int PASSES_PER_ROUND = 40;

  private CodecCpuTimeComparison() {}

  /** Runs the comparison for 1 and 16 blocks per event. */
  public static void main(String[] args) throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int blocks : new int[] {1, 16}) {
      CodecBenchmark fixture = new CodecBenchmark();
      fixture.blocks = blocks;
      fixture.setUp();
      byte[][] messages = fixture.messages;
      long sink = 0;
      for (int warm = 0; warm < 200; warm++) {
        sink += core(messages) + hand(messages);
      }
      long[] core = new long[ROUNDS];
      long[] hand = new long[ROUNDS];
      for (int r = 0; r < ROUNDS; r++) {
        long t0 = mx.getCurrentThreadCpuTime();
        for (int p = 0; p < PASSES_PER_ROUND; p++) {
          sink += core(messages);
        }
        long t1 = mx.getCurrentThreadCpuTime();
        for (int p = 0; p < PASSES_PER_ROUND; p++) {
          sink += hand(messages);
        }
        long t2 = mx.getCurrentThreadCpuTime();
        core[r] = t1 - t0;
        hand[r] = t2 - t1;
      }
      double perMessage = PASSES_PER_ROUND * (double) messages.length;
      double coreNs = median(core) / perMessage;
      double handNs = median(hand) / perMessage;
      System.out.printf("blocks=%d: msgpack-core %.0f ns/message (%.2f M/s CPU), hand-written %.0f ns/message"
          + " (%.2f M/s CPU), hand-written speed-up %.2fx [sink %d]%n",
          blocks, coreNs, 1e3 / coreNs, handNs, 1e3 / handNs, coreNs / handNs, sink & 1);
    }
  }

  private static long core(byte[][] messages) throws Exception {
    long n = 0;
    for (byte[] m : messages) {
      n += EventPlaneCodec.decodeMessage(m, EventTopics.KV_EVENTS).envelope().sequence();
    }
    return n;
  }

  private static long hand(byte[][] messages) throws Exception {
    long n = 0;
    for (byte[] m : messages) {
      n += HandWrittenMsgpackBaseline.decodeMessage(m, EventTopics.KV_EVENTS).envelope().sequence();
    }
    return n;
  }

  private static double median(long[] v) {
    long[] c = v.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }
}
