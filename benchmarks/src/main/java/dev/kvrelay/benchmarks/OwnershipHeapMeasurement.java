package dev.kvrelay.benchmarks;

import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfPublicationException;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.Locale;

/**
 * Not thread-safe: a single-threaded command-line measurement. Heap cost of the producer's exact
 * ownership state ({@code ckf-cbi1.md} §3.4) per tracked (member, external id) mapping, and the bytes
 * allocated per event in steady state. Run:
 *
 * <pre>java -cp benchmarks/target/benchmarks-all.jar dev.kvrelay.benchmarks.OwnershipHeapMeasurement</pre>
 *
 * <p>A {@link CkfProducer} sized for E = 2^20 (B = 2^19) is filled with 2^20 mappings over 16 members
 * (worker 1..16, dp rank 0; per member a 16-block root chain, then 16-block batches chained from its tail;
 * every block a distinct canonical hash), draining every 16 events without a subscriber so the dirty
 * window stays small. Printed:
 *
 * <ol>
 *   <li>{@code ownershipFootprintBytes() / mappings}: the producer's own estimate from array lengths.
 *   <li>Retained heap per mapping: {@code totalMemory − freeMemory} after repeated {@code System.gc()},
 *       measured on the empty producer (table and window already allocated) and on the filled one.
 *   <li>Bytes allocated per event in steady state ({@code ThreadMXBean#getThreadAllocatedBytes} of this
 *       thread): cycles of Removed(16 oldest in-flight blocks) + Stored(16 new blocks), 64 batches in
 *       flight; once draining without a subscriber (no publication objects) and once on a subscriber
 *       lease (one delta per 16 events).
 * </ol>
 */
public final class OwnershipHeapMeasurement {
  static final int MAPPINGS = 1 << 20;
  static final int MEMBERS = 16;
  static final int BLOCKS = ProducerWorkload.BLOCKS;
  static final int LAG = ProducerWorkload.LAG;
  static final int EVENTS_PER_DRAIN = 16;
  static final int WARMUP_CYCLES = 400_000;
  static final int MEASURED_CYCLES = 400_000;

  private static final int EXTERNAL_STREAM = 21;
  private static final int TOKENS_STREAM = 22;

  private final ProducerWorkload workload;

  private OwnershipHeapMeasurement(CkfProducer producer) {
    this.workload = new ProducerWorkload(producer, MEMBERS, EXTERNAL_STREAM, TOKENS_STREAM);
  }

  public static void main(String[] args) throws CkfConfigException, CkfPublicationException, InterruptedException {
    long baseline = usedHeapAfterGc();
    CkfProducer producer = CkfProducer.create(
        CkfProducerConfig.forExpectedBlocks(MAPPINGS).withPublishEveryNEvents(EVENTS_PER_DRAIN));
    OwnershipHeapMeasurement m = new OwnershipHeapMeasurement(producer);
    long empty = usedHeapAfterGc();
    m.fill();
    long filled = usedHeapAfterGc();
    long mappings = producer.mappingCount();
    if (mappings != MAPPINGS || producer.residentCount() != MAPPINGS || producer.capacityFailures() != 0) {
      throw new IllegalStateException("fill drifted: " + producer.stats());
    }

    double footprint = (double) producer.ownershipFootprintBytes() / mappings;
    double retained = (double) (filled - empty) / mappings;
    System.out.printf(Locale.ROOT, "producer: B = %d buckets, %d mappings over %d members, %d resident%n",
        producer.bucketCount(), mappings, MEMBERS, producer.residentCount());
    System.out.printf(Locale.ROOT, "empty producer (table 8·B + window + initial maps): %,d bytes%n", empty - baseline);
    System.out.printf(Locale.ROOT, "(a) ownershipFootprintBytes()/mappings = %,d / %d = %.2f B/mapping%n",
        producer.ownershipFootprintBytes(), mappings, footprint);
    System.out.printf(Locale.ROOT, "(b) retained heap delta/mappings       = %,d / %d = %.2f B/mapping%n",
        filled - empty, mappings, retained);

    m.workload.startRing();
    double quiet = m.allocatedPerEvent();
    producer.snapshotAfterBarrier(0x1EA5EL);
    double publishing = m.allocatedPerEvent();
    System.out.printf(Locale.ROOT,
        "(c) steady-state allocation: %.3f B/event draining without subscriber, %.3f B/event with a delta "
            + "every %d events (%d-block Stored + Removed cycles, %d batches in flight)%n",
        quiet, publishing, EVENTS_PER_DRAIN, BLOCKS, LAG);
    if (producer.mappingCount() != MAPPINGS + (long) LAG * BLOCKS || producer.stats().unknownRemovals() != 0) {
      throw new IllegalStateException("steady state drifted: " + producer.stats());
    }
    Reference.reachabilityFence(m);
  }

  /** Used heap after several full collections. */
  static long usedHeapAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 6; i++) {
      System.gc();
      Thread.sleep(50);
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }

  private void fill() {
    workload.storeRoots();
    long perMemberBatches = MAPPINGS / MEMBERS / BLOCKS - 1;
    for (int member = 0; member < MEMBERS; member++) {
      workload.storeBackground(member, perMemberBatches);
    }
  }

  /** Warms the cycle up, then returns this thread's allocated bytes per event over the measured cycles. */
  private double allocatedPerEvent() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    runCycles(WARMUP_CYCLES);
    long probeStart = threads.getThreadAllocatedBytes(thread);
    long probeOverhead = threads.getThreadAllocatedBytes(thread) - probeStart;
    long start = threads.getThreadAllocatedBytes(thread);
    runCycles(MEASURED_CYCLES);
    long allocated = threads.getThreadAllocatedBytes(thread) - start - probeOverhead;
    return (double) allocated / (2.0 * MEASURED_CYCLES);
  }

  private void runCycles(int cycles) {
    for (int c = 0; c < cycles; c++) {
      if (workload.cycle() != 0) {
        throw new IllegalStateException("event failed in a steady-state cycle");
      }
      workload.drainIfDue();
    }
  }
}
