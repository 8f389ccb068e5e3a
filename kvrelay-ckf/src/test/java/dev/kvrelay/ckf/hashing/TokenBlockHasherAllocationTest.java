package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvQueryHashFormat;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The caller-array entry points of the hot path allocate nothing per operation.
 *
 * <p>Reads HotSpot's per-thread allocation counter reflectively: the test sources compile inside the
 * {@code dev.kvrelay.ckf} module, which does not read {@code java.management} (tests run on the class
 * path, where reflection reaches it).
 */
class TokenBlockHasherAllocationTest {
  private static final int ROUNDS = 20_000;

  /** {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long)} of the current thread. */
  private static final class AllocationCounter {
    private final Object bean;
    private final Method allocatedBytes;

    AllocationCounter() throws ReflectiveOperationException {
      bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
      Class<?> hotspot = Class.forName("com.sun.management.ThreadMXBean");
      Assumptions.assumeTrue(hotspot.isInstance(bean), "HotSpot per-thread allocation counter");
      Assumptions.assumeTrue(
          (Boolean) hotspot.getMethod("isThreadAllocatedMemorySupported").invoke(bean), "counter supported");
      hotspot.getMethod("setThreadAllocatedMemoryEnabled", boolean.class).invoke(bean, true);
      allocatedBytes = hotspot.getMethod("getThreadAllocatedBytes", long.class);
    }

    long currentThread() throws ReflectiveOperationException {
      return (Long) allocatedBytes.invoke(bean, Thread.currentThread().getId());
    }
  }

  @Test
  void sequenceHashingIntoCallerArraysDoesNotAllocate() throws Exception {
    AllocationCounter counter = new AllocationCounter();

    int[] tokens = new int[1_000];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = i * 7919;
    }
    MultimodalBlockHashes mm = MultimodalBlockHashes.of(new long[] {5, -1, 3}, new long[0], new long[] {9});
    TokenBlockHasher standard =
        TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, 16, BlockHashSalt.of("adapter-a", "ns"));
    TokenBlockHasher eagle = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_EAGLE_V1, 16);
    long[] out = new long[tokens.length];
    long[] chainOut = new long[tokens.length];
    Xxh3 xxh3 = Xxh3.withSeed(0x5DEECE66D1B54A33L);
    byte[] bytes = new byte[300];

    long sink = 0;
    for (int round = 0; round < 2; round++) { // round 0 warms up (JIT, class init)
      long before = counter.currentThread();
      for (int i = 0; i < ROUNDS; i++) {
        int len = 100 + (i % 850);
        sink += standard.sequenceHashes(tokens, i % 50, len, mm, out, 0);
        sink += eagle.blockHashes(tokens, 0, len, MultimodalBlockHashes.NONE, out, 0);
        sink += SequenceHash.chain(out, 0, 32, chainOut, 0);
        sink += out[0] + chainOut[31];
        // the Xxh3 entry points its class comment calls allocation-free
        sink += xxh3.hashLong(i) + xxh3.hashLongLong(i, sink) + xxh3.hash(bytes, i % 7, i % 293)
            + Xxh3.unseeded(bytes, 0, i % 300);
      }
      long allocated = counter.currentThread() - before;
      if (round == 1) {
        // A few hundred bytes of slack for the measurement itself; per-operation allocation would be MBs.
        assertThat(allocated).as("bytes allocated by %d hashing rounds", ROUNDS).isLessThan(4_096);
      }
    }
    assertThat(sink).isNotZero();
  }
}
