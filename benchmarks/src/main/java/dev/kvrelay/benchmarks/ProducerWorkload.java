package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.producer.CkfOutcome;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.StoredBatch;

/**
 * Not thread-safe: confined to the benchmark thread. The producer workload shared by
 * {@link ProducerIngestBenchmark} and {@link OwnershipHeapMeasurement}: members (worker 1..n, dp rank 0)
 * each own a 16-block root chain; every later batch is 16 fresh blocks chained from its member's root
 * tail, so each block is a new (member, external id) mapping whose canonical hash is a chain step. A ring
 * of {@code LAG} in-flight batches drives the steady state: one <em>cycle</em> removes the oldest batch and
 * stores a new one for the same member in its slot, keeping the mapping count constant.
 */
final class ProducerWorkload {
  static final int BLOCKS = 16;
  static final int LAG = 64;

  final CkfProducer producer;
  private final int members;
  private final int externalStream;
  private final int tokensStream;
  private final StoredBatch batch = new StoredBatch(BLOCKS);
  /** External id of each member's root-chain tail: the parent of every later batch. */
  private final long[] rootTail;
  /** External ids of the in-flight batches, oldest at {@link #oldest}. */
  private final long[][] inFlight = new long[LAG][BLOCKS];
  private final int[] inFlightMember = new int[LAG];
  private int oldest;
  private long nextBlock;

  ProducerWorkload(CkfProducer producer, int members, int externalStream, int tokensStream) {
    this.producer = producer;
    this.members = members;
    this.externalStream = externalStream;
    this.tokensStream = tokensStream;
    this.rootTail = new long[members];
  }

  /** Stores each member's 16-block root chain (no parent). */
  void storeRoots() {
    for (int m = 0; m < members; m++) {
      batch.reset(worker(m), 0);
      for (int i = 0; i < BLOCKS; i++) {
        long block = nextBlock++;
        rootTail[m] = externalId(block);
        batch.addBlock(rootTail[m], tokensHash(block));
      }
      expectOk(producer.stored(batch));
      drainIfDue();
    }
  }

  /** Stores {@code batches} background batches for {@code member}, not remembered for removal. */
  void storeBackground(int member, long batches) {
    for (long k = 0; k < batches; k++) {
      expectOk(storeNewBatch(member, null));
      drainIfDue();
    }
  }

  /** Adds the {@code LAG} in-flight batches the steady-state cycles recycle (members round robin). */
  void startRing() {
    for (int slot = 0; slot < LAG; slot++) {
      inFlightMember[slot] = slot % members;
      expectOk(storeNewBatch(inFlightMember[slot], inFlight[slot]));
      drainIfDue();
    }
  }

  /**
   * Removed of the oldest in-flight batch, then Stored of a new batch for the same member in its slot.
   *
   * @return the bitwise OR of both outcomes' ordinals: 0 iff both were {@link CkfOutcome#OK}
   */
  int cycle() {
    int slot = oldest;
    long[] ids = inFlight[slot];
    int member = inFlightMember[slot];
    CkfOutcome removed = producer.removed(worker(member), 0, ids, BLOCKS);
    CkfOutcome stored = storeNewBatch(member, ids);
    oldest = slot + 1 == LAG ? 0 : slot + 1;
    return removed.ordinal() | stored.ordinal();
  }

  /** Stores 16 fresh blocks for {@code member} chained from its root tail; records their ids in {@code ids}. */
  private CkfOutcome storeNewBatch(int member, long[] ids) {
    StoredBatch b = batch.reset(worker(member), 0).parent(rootTail[member]);
    for (int i = 0; i < BLOCKS; i++) {
      long block = nextBlock++;
      long external = externalId(block);
      if (ids != null) {
        ids[i] = external;
      }
      b.addBlock(external, tokensHash(block));
    }
    return producer.stored(b);
  }

  void drainIfDue() {
    if (producer.shouldDrain()) {
      producer.drain();
    }
  }

  static void expectOk(CkfOutcome outcome) {
    if (outcome != CkfOutcome.OK) {
      throw new IllegalStateException("event failed: " + outcome);
    }
  }

  private static long worker(int member) {
    return 1 + member;
  }

  private long externalId(long block) {
    return BenchmarkHashes.at(BenchmarkHashes.stream(externalStream) + block);
  }

  private long tokensHash(long block) {
    return BenchmarkHashes.at(BenchmarkHashes.stream(tokensStream) + block);
  }
}
