package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfProducerStats;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfPublicationException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link CkfProducer} event application ({@code ckf-cbi1.md} §3.4, §5) at its design size: E = 1 048 576
 * expected blocks (B = 524 288 buckets, {@code max_kicks} 500, publication every 16 events as the Relay
 * configures it), 4 members, and E resident blocks, i.e. about 50 % slot load.
 *
 * <p>Fixture: each member (worker 1..4, dp rank 0) owns a 16-block root chain (no parent); every other
 * batch is 16 fresh blocks chained from its member's root tail, so each block is a new (member, external
 * id) mapping whose canonical hash is a chain step. After the prefill, {@code LAG = 64} batches are in
 * flight. One <em>cycle</em> is the realistic pair of events: Removed of the 16 blocks stored
 * {@code LAG} cycles earlier by the same member, then Stored of 16 new blocks. The mapping count stays
 * at E.
 *
 * <p>Score unit: <b>block lifecycles per second</b>: one op = one block stored plus one block removed (two
 * block events, two ownership changes, one physical insert and one physical delete).
 *
 * <ul>
 *   <li>{@link #storeRemove()}: one cycle per invocation, no drain in the measured loop; the dirty window
 *       is drained (and a delta built) only at the end of each iteration. Within an iteration the window
 *       saturates at B touched buckets, so this is an upper bound on event application alone.
 *   <li>{@link #storeRemoveDrain()}: 8 cycles (16 events) then {@link CkfProducer#drain()}, which builds the
 *       delta of the changed buckets on the subscriber lease (about 256 images, two arrays and one
 *       {@link CkfDelta} allocated per drain): the Relay's steady-state cadence.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ProducerIngestBenchmark {
  static final long EXPECTED_BLOCKS = 1 << 20;
  static final int MEMBERS = 4;
  static final int BLOCKS = ProducerWorkload.BLOCKS;
  static final int LAG = ProducerWorkload.LAG;
  static final int CYCLES_PER_DRAIN = 8;
  static final int EVENTS_PER_DRAIN = 2 * CYCLES_PER_DRAIN;
  static final long LEASE = 0x1EA5EL;

  private static final int EXTERNAL_STREAM = 11;
  private static final int TOKENS_STREAM = 12;

  CkfProducer producer;
  ProducerWorkload workload;

  @Setup
  public void setUp() throws CkfConfigException, CkfPublicationException {
    CkfProducerConfig config = CkfProducerConfig.forExpectedBlocks(EXPECTED_BLOCKS)
        .withPublishEveryNEvents(EVENTS_PER_DRAIN);
    producer = CkfProducer.create(config);
    if (producer.bucketCount() != 524_288) {
      throw new IllegalStateException("E = 2^20 should give B = 2^19, got " + producer.bucketCount());
    }
    workload = new ProducerWorkload(producer, MEMBERS, EXTERNAL_STREAM, TOKENS_STREAM);
    workload.storeRoots();
    long backgroundBatches = EXPECTED_BLOCKS / BLOCKS - MEMBERS - LAG;
    for (int m = 0; m < MEMBERS; m++) {
      workload.storeBackground(m, backgroundBatches / MEMBERS + (m < backgroundBatches % MEMBERS ? 1 : 0));
    }
    workload.startRing();
    BarrierSnapshot barrier = producer.snapshotAfterBarrier(LEASE);
    if (barrier.snapshot().bucketCount() != 524_288) {
      throw new IllegalStateException("barrier snapshot of " + barrier.snapshot().bucketCount() + " buckets");
    }
    checkFixture();
  }

  private int cycle() {
    return workload.cycle();
  }

  /** One cycle: 16 blocks removed, 16 stored. */
  @Benchmark
  @OperationsPerInvocation(BLOCKS)
  public int storeRemove() {
    return cycle();
  }

  /** Eight cycles (16 events), then one drain into a delta. */
  @Benchmark
  @OperationsPerInvocation(CYCLES_PER_DRAIN * BLOCKS)
  public CkfPublication storeRemoveDrain() {
    int outcomes = 0;
    for (int c = 0; c < CYCLES_PER_DRAIN; c++) {
      outcomes |= cycle();
    }
    if (outcomes != 0) {
      throw new IllegalStateException("event failed: outcome bits " + outcomes);
    }
    return producer.drain();
  }

  /** Drains what {@link #storeRemove()} left pending and checks the producer is still what it claims. */
  @TearDown(Level.Iteration)
  public void drainAndCheck() {
    producer.drain();
    checkFixture();
  }

  private void checkFixture() {
    CkfProducerStats s = producer.stats();
    long expectedMappings = EXPECTED_BLOCKS;
    if (producer.mappingCount() != expectedMappings || producer.residentCount() != expectedMappings
        || s.capacityFailures() != 0 || s.parentNotFound() != 0 || s.unknownRemovals() != 0
        || s.invalidBlockSequence() != 0 || s.invariantViolations() != 0 || s.ownershipOverflows() != 0
        || s.fenced()) {
      throw new IllegalStateException("producer drifted from the fixture: " + s);
    }
  }
}
