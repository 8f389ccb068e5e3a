package dev.kvrelay.benchmarks;

import dev.kvrelay.engine.actor.PoolActorConfig;
import java.lang.ref.Reference;
import java.util.Locale;

/**
 * Not thread-safe: a single-threaded command-line measurement. Retained heap of one engine pool at its design
 * size: {@code expected_unique_blocks} E = 2^20 (B = 2^19) with E tracked (member, external id) mappings over 16
 * members, as {@link PoolPipelineFixture} builds it (the actor runs inline on this thread). Run:
 *
 * <pre>java -cp benchmarks/target/benchmarks-all.jar dev.kvrelay.benchmarks.PoolHeapMeasurement</pre>
 *
 * <p>Used heap ({@code totalMemory − freeMemory} after repeated {@code System.gc()}) is read:
 *
 * <ol>
 *   <li>before anything is built (baseline);
 *   <li>after the fixture is built: the filled producer, the pool actor, the hub registry and the (vacant,
 *       uninitialized) hub slot, plus the fixture's {@value #RING} pre-built events (about 100 KB);
 *   <li>after one subscriber joined (the hub initializes its mirror of the B words), took its snapshot and
 *       one delta (which releases the hub's shared snapshot copy), so it is idle;
 *   <li>after {@value #MANY} idle subscribers in all (one subscriber's cost is below the resolution of one
 *       reading, so it is averaged over the {@value #MANY} − 1 added ones);
 *   <li>after every subscriber closed: the hub stays initialized, holding only its mirror.
 * </ol>
 *
 * <p>Under G1 every array of at least half a region is humongous and rounded up to whole regions: a
 * {@code long[2^19]} (4 MiB + 16 B: the table, the hub mirror) takes 8 MiB with 4 MiB regions (the ergonomic
 * choice for a 6 GiB heap). Run once more with {@code -XX:+UseParallelGC} to see the sizes without that
 * rounding.
 */
public final class PoolHeapMeasurement {
  /** Pre-built events the fixture keeps: just over the 64 in flight. */
  static final int RING = 2 * PoolPipelineFixture.LAG;
  /** Idle subscribers of the last step (the default {@code max_subscribers_per_pool}). */
  static final int MANY = 64;

  private PoolHeapMeasurement() {}

  public static void main(String[] args) throws Exception {
    long baseline = OwnershipHeapMeasurement.usedHeapAfterGc();
    InlineActorScheduler scheduler = new InlineActorScheduler();
    PoolPipelineFixture f = new PoolPipelineFixture(scheduler, scheduler, scheduler::runQueued,
        PoolActorConfig.DEFAULT_PUBLICATION_DELAY_NANOS, RING);
    long built = OwnershipHeapMeasurement.usedHeapAfterGc();

    f.subscribe("heap-0");
    oneDelta(f);
    long withOne = OwnershipHeapMeasurement.usedHeapAfterGc();

    for (int i = 1; i < MANY; i++) {
      f.subscribe("heap-" + i);
    }
    oneDelta(f);
    long withMany = OwnershipHeapMeasurement.usedHeapAfterGc();

    f.closeSubscribers();
    if (f.slot.subscriberCount() != 0 || !f.slot.isInitialized()) {
      throw new IllegalStateException("hub should stay initialized without subscribers: " + f.slot);
    }
    long idleHub = OwnershipHeapMeasurement.usedHeapAfterGc();

    double blocks = f.producer.mappingCount();
    System.out.printf(Locale.ROOT, "GC: %s; pool: B = %,d buckets, %,d tracked mappings over %d members, %,d resident%n",
        gcNames(), f.producer.bucketCount(), f.producer.mappingCount(), PoolPipelineFixture.MEMBERS,
        f.producer.residentCount());
    System.out.printf(Locale.ROOT, "producer ownershipFootprintBytes(): %,d B (%.2f B/block); table and hub mirror"
        + " arrays: 8·B = %,d B each%n", f.producer.ownershipFootprintBytes(),
        f.producer.ownershipFootprintBytes() / blocks, 8L * f.producer.bucketCount());
    row("producer + actor + registry (hub not initialized)", built - baseline, blocks);
    row("  + hub mirror + one idle subscriber", withOne - built, blocks);
    System.out.printf(Locale.ROOT, "%-58s %,14.0f B per subscriber (from 1 to %d idle subscribers: %,d B)%n",
        "  each further idle subscriber", (withMany - withOne) / (double) (MANY - 1), MANY, withMany - withOne);
    row("total: producer + actor + hub mirror + 1 idle subscriber", withOne - baseline, blocks);
    row("after every subscriber closed (hub keeps its mirror)", idleHub - baseline, blocks);
    Reference.reachabilityFence(f);
    f.close();
  }

  /** 16 events (one threshold delta), then every subscriber polled empty; checks the pipeline. */
  private static void oneDelta(PoolPipelineFixture f) throws Exception {
    for (int c = 0; c < PoolPipelineFixture.THRESHOLD / 2; c++) {
      f.submitRemoveOldest();
      f.submitStoreNext();
    }
    f.pollAll();
    f.check();
  }

  private static String gcNames() {
    StringBuilder b = new StringBuilder();
    for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      b.append(b.length() == 0 ? "" : ", ").append(gc.getName());
    }
    return b.toString();
  }

  private static void row(String what, long bytes, double blocks) {
    System.out.printf(Locale.ROOT, "%-58s %,14d B per pool  %8.2f B per tracked block%n", what, bytes,
        bytes / blocks);
  }
}
