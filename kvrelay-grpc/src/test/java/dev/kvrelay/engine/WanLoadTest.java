package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.FilterUpdateKind;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.grpc.wire.RelayStatus;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Load on loopback, bounded in count and time (issue 4): one relay behind its {@link RelayGrpcServer}, one pool fed
 * by simulated workers at a fixed, paced event rate, 64 {@link RelayGrpcClient} pool subscribers that drain on their
 * own threads and check every frame with the independent {@link WireReplica} (CBI1 decode, snapshot assembly,
 * contiguous deltas), and one stalled subscriber: a raw grpc-java call on its own channel with a 64 KiB receive
 * window that never requests a message, so not even its one-chunk snapshot can cross the transport.
 *
 * <p>The stalled stream must be cut off alone ({@code SUBSCRIBER_LAGGED} once its bounded hub queue is full,
 * visible as {@code RESOURCE_EXHAUSTED} plus the reason trailer when it finally reads), while every draining
 * subscriber ends, after ingestion stops and the relay is quiescent, with words equal to the producer's, holding
 * every block the workers still cache, and without any error.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class WanLoadTest {
  static final int DRAINING = 64;
  /** Paced ingestion: KV store events per second (each stores {@link #BLOCKS_PER_EVENT} new blocks). */
  static final int EVENTS_PER_SECOND = 2_000;
  static final int BLOCKS_PER_EVENT = 2;
  /** Every this many events, the worker evicts {@link #EVICT_LEAVES} leaf blocks (removals on the wire too). */
  static final int EVICT_EVERY = 8;
  static final int EVICT_LEAVES = 3;
  /**
   * After this many events the live set stops growing (each event evicts as many leaves as it caches), so a slow,
   * loaded run that ingests for longer stays inside {@link #EXPECTED_BLOCKS} and never meets a capacity omission.
   */
  static final int GROWTH_EVENT_CAP = 50_000;
  /** Minimum ingestion time; it goes on (at the same rate) until the stalled stream was cut off. */
  static final long INGEST_MS = 5_000;
  /** Wall-clock bound that only a hung run reaches. */
  static final long INGEST_DEADLINE_MS = 180_000;
  /** Sizes the CKF at 65 536 buckets: a 512 KiB snapshot, one chunk, larger than the stalled 64 KiB window. */
  static final long EXPECTED_BLOCKS = 200_000;
  /**
   * Timer-only publication cadence (threshold out of reach): at most 100 deltas/s, so each subscriber's hub queue
   * of {@link #QUEUE_CAPACITY} frames is ~2.5 s of slack for a draining reader and fills for the stalled one.
   */
  static final long PUBLICATION_DELAY_MS = 10;
  static final int QUEUE_CAPACITY = 256;
  /**
   * Failure bound, counted in deltas rather than wall time: the stalled subscriber's queue holds
   * {@link #QUEUE_CAPACITY} frames, so it must be cut off before the hub has encoded four queues' worth. On a
   * loaded machine publication slows down (one clean-clone run at load average 26 encoded 42 deltas in 26 s), which
   * moves the cut-off in time but not in deltas.
   */
  static final long CUT_OFF_DELTA_BOUND = 4L * QUEUE_CAPACITY;
  static final int STALLED_WINDOW = 65_535;
  static final long DEADLINE_MS = 15_000;

  @Test
  void sixtyFourDrainingSubscribersKeepUpWhileOneStalledSubscriberIsCutOffAlone() throws Exception {
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-load").watchAll(true)
        .expectedUniqueBlocks(EXPECTED_BLOCKS).bind("127.0.0.1:0")
        .publicationThreshold(Integer.MAX_VALUE).publicationDelayMs(PUBLICATION_DELAY_MS)
        .publicationQueueCapacity(QUEUE_CAPACITY).snapshotProgressTimeoutMs(2_000)
        .maxPoolStreamsTotal(DRAINING + 8).maxSubscribersPerPool(DRAINING + 8).build();
    List<RelayGrpcClient> clients = new ArrayList<>();
    List<Drainer> drainers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    ManagedChannel stalledChannel = null;
    ClientCall<SubscribeKvPoolRequest, FilterUpdate> stalledCall = null;
    try (RelayHarness h = new RelayHarness(config, true)) {
      List<SimWorker> workers = List.of(
          h.worker("ns/backend/generate", 500, card("llama", "aggregated", null, 0, 2), 0, 2, true, null).start(),
          h.worker("ns/backend/generate", 501, card("llama", "aggregated", null, 0, 2), 0, 2, true, null).start());
      KvPoolDescriptor pool = h.pool(RelayHarness.ep("ns/backend/generate"));
      int bucketCount = pool.producer().ckfFormat().bucketCount();
      assertThat(bucketCount).as("a one-chunk snapshot larger than the stalled window")
          .isEqualTo(65_536);
      Ingest ingest = new Ingest(workers);
      for (int i = 0; i < 200; i++) {
        ingest.next(); // a non-empty snapshot
      }

      try (RelayGrpcServer server = RelayGrpcServer.builder().engine(h.engine).build()) {
        server.start();
        long heapBefore = usedHeapAfterGc();

        // The stalled subscriber: its own channel, a 64 KiB receive window, never a request.
        stalledChannel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext()
            .flowControlWindow(STALLED_WINDOW).maxInboundMessageSize(RelayGrpcClient.DEFAULT_MAX_INBOUND_MESSAGE_BYTES)
            .build();
        stalledCall = stalledChannel.newCall(KvEventRelayGrpc.getSubscribeKvPoolMethod(), CallOptions.DEFAULT);
        StalledListener stalled = new StalledListener();
        stalledCall.start(stalled, new Metadata());
        stalledCall.sendMessage(WireCodec.subscribePoolRequest("load/stalled", pool.producer()));
        stalledCall.halfClose();

        // 64 draining subscribers, each on its own client (channel) and thread.
        for (int i = 0; i < DRAINING; i++) {
          RelayGrpcClient c = RelayGrpcClient.builder().target("127.0.0.1:" + server.port())
              .inboundQueueBound(16).build();
          clients.add(c);
          RelayStream<PoolFrame> s = WireSources.of(c).subscribePool(pool.poolId(), pool.producer(), String.format("load/%02d", i))
              .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
          Drainer d = new Drainer(new WireReplica(pool.producer(), s));
          drainers.add(d);
          Thread t = new Thread(d, "drainer-" + i);
          t.setDaemon(true);
          threads.add(t);
          t.start();
        }
        awaitUntil("every draining subscriber installed its snapshot",
            () -> drainers.stream().allMatch(d -> d.installed) || anyFailed(drainers));
        assertNoFailure(drainers);

        // Paced ingestion at a fixed rate: at least INGEST_MS, and until the stalled stream has been cut off.
        long start = System.nanoTime();
        long events = 0;
        while (true) {
          long elapsedNs = System.nanoTime() - start;
          long due = elapsedNs * EVENTS_PER_SECOND / 1_000_000_000L;
          while (events < due) {
            ingest.next();
            events++;
          }
          boolean minimumDone = elapsedNs >= TimeUnit.MILLISECONDS.toNanos(INGEST_MS);
          if (minimumDone && h.engine.stats().hubs().lagged() > 0) {
            break;
          }
          assertThat(h.engine.stats().hubs().deltasEncoded())
              .as("the stalled subscriber is cut off before the hub encoded %d deltas; hubs %s", CUT_OFF_DELTA_BOUND,
                  h.engine.stats().hubs()).isLessThan(CUT_OFF_DELTA_BOUND);
          assertThat(elapsedNs).as("ingestion did not hang; hubs %s", h.engine.stats().hubs())
              .isLessThan(TimeUnit.MILLISECONDS.toNanos(INGEST_DEADLINE_MS));
          assertNoFailure(drainers);
          Thread.sleep(2);
        }
        long ingestNs = System.nanoTime() - start;
        double eventsPerSecond = events * 1e9 / ingestNs;

        // Quiescence: every draining replica equals the producer, and the producer no longer changes.
        long[] producer = awaitAllConverged(h, pool, drainers);
        for (Drainer d : drainers) {
          d.stop = true;
        }
        for (Thread t : threads) {
          t.join(DEADLINE_MS);
          assertThat(t.isAlive()).as("%s stopped", t.getName()).isFalse();
        }
        assertNoFailure(drainers);
        Set<Long> live = new HashSet<>();
        for (SimWorker w : workers) {
          live.addAll(w.liveCanonicals());
        }
        long frames = 0;
        long deltas = 0;
        for (Drainer d : drainers) {
          WireReplica r = d.replica;
          assertThat(r.installed).isTrue();
          assertThat(r.words).as("replica words equal the producer's").isEqualTo(producer);
          assertThat(r.deltas).as("deltas were applied").isGreaterThan(0);
          assertThat(r.stream.isFinished()).as("a draining stream was never ended").isFalse();
          frames += r.frames;
          deltas += r.deltas;
        }
        for (PoolStats ps : h.engine.stats().pools()) {
          assertThat(ps.actor() == null ? 0 : ps.actor().capacityOmissions())
              .as("no capacity omission (the live set stays within the sizing): %s", ps.actor()).isZero();
        }
        RelayEngineScenarioTest.assertHolds(drainers.get(0).replica.words, pool.producer().ckfFormat(), live);
        assertThat(live.size()).as("not vacuous").isGreaterThan(10_000);

        // The stalled subscriber reads now: at most its snapshot, then the typed error.
        stalledCall.request(Integer.MAX_VALUE);
        Status end = stalled.end.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
        assertThat(end.getCode()).as("stalled status %s", end).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        Metadata trailers = stalled.trailers.get();
        assertThat(trailers == null ? null : trailers.get(RelayStatus.REASON_KEY))
            .isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED.wireName());
        assertThat(stalled.messages.get()).as("the server did not buffer the stalled stream's deltas")
            .isLessThanOrEqualTo(2);
        assertThat(stalled.snapshotChunks.get()).isLessThanOrEqualTo(1);

        RelayEngineStats.Hubs hubs = h.engine.stats().hubs();
        assertThat(hubs.lagged()).as("only the stalled stream lagged: %s", hubs).isEqualTo(1);
        assertThat(hubs.progressTimeouts()).isZero();
        assertThat(hubs.resnapshots()).isZero();
        assertThat(hubs.streamsRetired()).isZero();
        assertThat(hubs.faults()).isZero();
        assertThat(hubs.openStreams()).as("every draining stream still open").isEqualTo(DRAINING);
        assertThat(hubs.subscribersAdmitted()).isEqualTo(DRAINING + 1);
        assertThat(hubs.framesDelivered()).isGreaterThanOrEqualTo(frames);

        long heapAfter = usedHeapAfterGc();
        long replicaBytes = (long) DRAINING * bucketCount * Long.BYTES;
        long grown = heapAfter - heapBefore;
        assertThat(grown).as("retained heap growth (replicas hold %d bytes)", replicaBytes)
            .isLessThan(3 * replicaBytes + 128L * 1024 * 1024);

        System.out.printf("WanLoadTest: subscribers=%d draining + 1 stalled, events=%d (%d blocks each) in %d ms "
                + "= %.0f events/s, deltas encoded=%d, frames delivered (hub)=%d, frames applied by replicas=%d "
                + "(deltas %d), live blocks=%d, heap growth=%d MiB, stalled messages=%d%n",
            DRAINING, events, BLOCKS_PER_EVENT, TimeUnit.NANOSECONDS.toMillis(ingestNs), eventsPerSecond,
            hubs.deltasEncoded(), hubs.framesDelivered(), frames, deltas, live.size(), grown >> 20,
            stalled.messages.get());
      }
    } finally {
      for (Drainer d : drainers) {
        d.stop = true;
      }
      if (stalledCall != null) {
        stalledCall.cancel("test over", null);
      }
      if (stalledChannel != null) {
        stalledChannel.shutdownNow();
      }
      for (RelayGrpcClient c : clients) {
        c.close();
      }
    }
  }

  /** Not thread-safe (test thread): the paced workload, new prompts round-robin over workers and ranks. */
  private static final class Ingest {
    private final List<SimWorker> workers;
    private int n;

    Ingest(List<SimWorker> workers) {
      this.workers = workers;
    }

    void next() {
      SimWorker w = workers.get(n % workers.size());
      int rank = (n / workers.size()) % 2;
      w.cache(rank, RelayEngineScenarioTest.prompt(40_000 + n, BLOCKS_PER_EVENT));
      if (n >= GROWTH_EVENT_CAP) {
        w.evictLeaves(rank, BLOCKS_PER_EVENT);
      } else if (n % EVICT_EVERY == EVICT_EVERY - 1) {
        w.evictLeaves(rank, EVICT_LEAVES);
      }
      n++;
    }
  }

  /**
   * Thread-safe by confinement: the replica is touched only by the drainer's thread until {@link #stop} and the
   * thread's end (join); the test thread reads only the volatile fields meanwhile.
   */
  private static final class Drainer implements Runnable {
    final WireReplica replica;
    volatile boolean stop;
    volatile boolean installed;
    volatile long @Nullable [] target;
    volatile long @Nullable [] matched;
    volatile @Nullable Throwable failure;

    Drainer(WireReplica replica) {
      this.replica = replica;
    }

    @Override
    public void run() {
      try {
        while (!stop) {
          PoolFrame f = replica.stream.poll(20, TimeUnit.MILLISECONDS);
          if (f != null) {
            replica.apply(f);
            installed = replica.installed;
          } else if (replica.stream.isFinished()) {
            throw new AssertionError("stream finished without error");
          }
          long[] t = target;
          if (t != null && t != matched && replica.installed && Arrays.equals(t, replica.words)) {
            matched = t;
          }
        }
      } catch (RelayException e) {
        failure = e;
      } catch (Throwable e) {
        failure = e;
      }
    }
  }

  /** Thread-safe (atomics and a future): the stalled call's listener; it never requests on its own. */
  private static final class StalledListener extends ClientCall.Listener<FilterUpdate> {
    final AtomicInteger messages = new AtomicInteger();
    final AtomicInteger snapshotChunks = new AtomicInteger();
    final AtomicReference<@Nullable Metadata> trailers = new AtomicReference<>();
    final CompletableFuture<Status> end = new CompletableFuture<>();

    @Override
    public void onMessage(FilterUpdate message) {
      messages.incrementAndGet();
      if (message.getKind() == FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK) {
        snapshotChunks.incrementAndGet();
      }
    }

    @Override
    public void onClose(Status status, Metadata t) {
      trailers.set(t);
      end.complete(status);
    }
  }

  /** Waits until every drainer matched the producer's words after a sync, and the producer is stable. */
  private static long[] awaitAllConverged(RelayHarness h, KvPoolDescriptor pool, List<Drainer> drainers)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      h.engine.sync().get(DEADLINE_MS, TimeUnit.MILLISECONDS);
      long[] producer = h.engine.producerWords(pool.poolId()).get(DEADLINE_MS, TimeUnit.MILLISECONDS);
      assertThat(producer).isNotNull();
      for (Drainer d : drainers) {
        d.target = producer;
      }
      while (System.nanoTime() < deadline && !anyFailed(drainers)
          && !drainers.stream().allMatch(d -> d.matched == producer)) {
        Thread.sleep(5);
      }
      assertNoFailure(drainers);
      h.engine.sync().get(DEADLINE_MS, TimeUnit.MILLISECONDS);
      long[] again = h.engine.producerWords(pool.poolId()).get(DEADLINE_MS, TimeUnit.MILLISECONDS);
      boolean all = drainers.stream().allMatch(d -> d.matched == producer);
      if (all && Arrays.equals(producer, again)) {
        return producer;
      }
      assertThat(System.nanoTime()).as("%d of %d replicas converged to a stable producer",
          drainers.stream().filter(d -> d.matched == producer).count(), drainers.size()).isLessThan(deadline);
    }
  }

  private static boolean anyFailed(List<Drainer> drainers) {
    return drainers.stream().anyMatch(d -> d.failure != null);
  }

  private static void assertNoFailure(List<Drainer> drainers) {
    for (int i = 0; i < drainers.size(); i++) {
      Throwable f = drainers.get(i).failure;
      if (f != null) {
        throw new AssertionError("draining subscriber " + i + " failed", f);
      }
    }
  }

  private static void awaitUntil(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(20);
    }
    return rt.totalMemory() - rt.freeMemory();
  }
}
