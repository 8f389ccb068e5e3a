package dev.kvrelay.benchmarks;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.cbi1.Cbi1;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfOutcome;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfProducerStats;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.engine.hub.HubRegistry;
import dev.kvrelay.engine.hub.HubSettings;
import dev.kvrelay.engine.hub.HubSlot;
import dev.kvrelay.engine.hub.HubSource;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: driven by one benchmark thread (the actor and hub it wires are thread-safe themselves).
 * One pool of the engine wired end to end: a {@link CkfProducer} sized for {@code expected_unique_blocks}
 * E = 2^20 (B = 2^19, publication threshold 16) filled with E (member, external id) mappings over 16 members,
 * owned by a {@link PoolActor} whose {@code PublicationListener} is a real {@link HubSlot} of a
 * {@link HubRegistry} (default hub knobs), and in-process subscribers ({@link RelayStream} of
 * {@link PoolFrame}) that already took their snapshot.
 *
 * <p>Workload: each member (worker 1..16, dp rank 0) owns a 16-block root chain; the background is 16-block
 * batches chained from the member's root tail. The steady state recycles {@code ring} pre-built
 * {@code Stored} events (16 blocks chained from the member's root tail, distinct external ids and token
 * hashes) and their matching {@code Removed} events, all wrapped in pre-built {@link PoolCommand.Apply}
 * commands: one <em>cycle</em> submits the Removed of the batch stored {@link #LAG} cycles earlier, then the
 * next Stored, so residency stays at exactly E mappings and a recycled batch's ids were removed
 * {@code ring − LAG} cycles before they are stored again. Nothing is allocated by the fixture per cycle.
 */
final class PoolPipelineFixture {
  static final long EXPECTED_BLOCKS = 1 << 20;
  static final int BUCKETS = 1 << 19;
  static final int MEMBERS = 16;
  static final int BLOCKS = 16;
  /** Batches in flight between their Stored and their Removed. */
  static final int LAG = 64;
  /** Pre-built Stored/Removed pairs the benchmarks recycle (RING · 16 distinct rotating blocks). */
  static final int RING = 16_384;
  static final int THRESHOLD = PoolActorConfig.DEFAULT_PUBLICATION_THRESHOLD;
  static final RelayIdentity RELAY = new RelayIdentity(0xBE_7C4L, 0x1EE7L);
  static final long PUBLISHER = 0xB0B;

  private static final int ROOT_EXTERNAL = 31;
  private static final int ROOT_TOKENS = 32;
  private static final int BACKGROUND_EXTERNAL = 33;
  private static final int BACKGROUND_TOKENS = 34;
  private static final int RING_EXTERNAL = 35;
  private static final int RING_TOKENS = 36;
  private static final long AWAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  final CkfProducer producer;
  final ProducerIdentity identity;
  final HubRegistry registry;
  final HubSlot slot;
  final PoolActor actor;
  final AtomicLong actorFaults = new AtomicLong();
  final AtomicLong hubFaults = new AtomicLong();
  private final Runnable pump;
  private final long[] rootTail = new long[MEMBERS];
  private final int ring;
  private final PoolCommand.Apply[] stored;
  private final PoolCommand.Apply[] removed;
  private int nextStored;
  private int nextRemoved;
  private final List<RelayStream<PoolFrame>> streams = new ArrayList<>();
  private long[] lastSequence = new long[0];
  private long deltaFrames;

  /**
   * Builds and fills the pool, then starts its actor and hub (no subscriber yet).
   *
   * @param actorScheduler where the actor runs (its publication timer included)
   * @param hubTimers the hub's heartbeat and snapshot-progress timers
   * @param pump runs whatever {@code actorScheduler} queued (a no-op for a threaded scheduler)
   * @param publicationDelayNanos the actor's one-shot publication timer
   * @param ring pre-built Stored/Removed pairs to recycle (more than {@link #LAG}; {@link #RING} for benchmarks)
   */
  PoolPipelineFixture(ActorScheduler actorScheduler, ActorScheduler hubTimers, Runnable pump,
      long publicationDelayNanos, int ring) throws CkfConfigException {
    if (ring <= LAG) {
      throw new IllegalArgumentException("ring " + ring + " must exceed the " + LAG + " batches in flight");
    }
    this.pump = pump;
    this.ring = ring;
    this.stored = new PoolCommand.Apply[ring];
    this.removed = new PoolCommand.Apply[ring];
    producer = CkfProducer.create(
        CkfProducerConfig.forExpectedBlocks(EXPECTED_BLOCKS).withPublishEveryNEvents(THRESHOLD));
    if (producer.bucketCount() != BUCKETS) {
      throw new IllegalStateException("E = 2^20 should give B = 2^19, got " + producer.bucketCount());
    }
    fill();
    identity = identity(producer);
    registry = new HubRegistry(defaultHubSettings(), RELAY, hubTimers, System::nanoTime,
        PoolPipelineFixture::epochMicros, (pool, who, reason, message) -> hubFaults.incrementAndGet());
    ActorSource source = new ActorSource();
    slot = registry.attach(identity.poolId(), identity, producer.format(), source);
    PoolActorConfig config = new PoolActorConfig(PoolActorConfig.DEFAULT_MAILBOX_CAPACITY,
        PoolActorConfig.DEFAULT_PENDING_BLOCK_PERMITS, publicationDelayNanos);
    actor = PoolActor.start(producer, config, actorScheduler, slot, fault -> actorFaults.incrementAndGet());
    source.actor = actor;
  }

  /** The hub knobs at their documented defaults (wan-grpc.md §3.1). */
  static HubSettings defaultHubSettings() {
    return new HubSettings(
        (int) RelayConfigKey.PUBLICATION_QUEUE_CAPACITY.defaultValue(),
        RelayConfigKey.PUBLICATION_QUEUE_BYTES.defaultValue(),
        RelayConfigKey.POOL_HEARTBEAT_INTERVAL_MS.defaultValue(),
        RelayConfigKey.SNAPSHOT_PROGRESS_TIMEOUT_MS.defaultValue(),
        (int) RelayConfigKey.MAX_SUBSCRIBERS_PER_POOL.defaultValue(),
        (int) RelayConfigKey.MAX_INITIALIZED_POOL_HUBS.defaultValue(),
        (int) RelayConfigKey.PUBLICATION_ENCODING_CONCURRENCY.defaultValue());
  }

  private static long epochMicros() {
    return System.currentTimeMillis() * 1000L;
  }

  private static ProducerIdentity identity(CkfProducer producer) {
    byte[] semantics = new byte[DigestIdentity.DIGEST_BYTES];
    byte[] scope = new byte[DigestIdentity.DIGEST_BYTES];
    Arrays.fill(semantics, (byte) 0x5E);
    Arrays.fill(scope, (byte) 0x5C);
    KvPoolId pool = new KvPoolId(new IndexerDomainId(new DigestIdentity(semantics, IdentitySource.EXPLICIT),
        new DigestIdentity(scope, IdentitySource.EXPLICIT)), DcId.of(0xDC));
    return new ProducerIdentity(pool, 0x1EE7L, 1, producer.format());
  }

  // ------------------------------------------------------------------ fill (before the actor owns the producer)

  private void fill() {
    StoredBatch batch = new StoredBatch(BLOCKS);
    long index = 0;
    for (int m = 0; m < MEMBERS; m++) {
      batch.reset(worker(m), 0);
      for (int i = 0; i < BLOCKS; i++, index++) {
        rootTail[m] = hash(ROOT_EXTERNAL, index);
        batch.addBlock(rootTail[m], hash(ROOT_TOKENS, index));
      }
      expectOk(producer.stored(batch));
    }
    long background = EXPECTED_BLOCKS / BLOCKS - MEMBERS - LAG;
    index = 0;
    for (long k = 0; k < background; k++) {
      int m = (int) (k % MEMBERS);
      batch.reset(worker(m), 0).parent(rootTail[m]);
      for (int i = 0; i < BLOCKS; i++, index++) {
        batch.addBlock(hash(BACKGROUND_EXTERNAL, index), hash(BACKGROUND_TOKENS, index));
      }
      expectOk(producer.stored(batch));
      if (producer.shouldDrain()) {
        producer.drain();
      }
    }
    for (int k = 0; k < ring; k++) {
      int m = k % MEMBERS;
      long[] ids = new long[BLOCKS];
      List<StoredBlock> blocks = new ArrayList<>(BLOCKS);
      for (int i = 0; i < BLOCKS; i++) {
        long at = (long) k * BLOCKS + i;
        ids[i] = hash(RING_EXTERNAL, at);
        blocks.add(StoredBlock.of(ids[i], hash(RING_TOKENS, at)));
      }
      MemberId member = new MemberId(worker(m), 0);
      stored[k] = new PoolCommand.Apply(member, PUBLISHER, new RouterEvent(worker(m), StorageTier.DEVICE,
          ResidencyDomain.WORKER, 2L * k, 0,
          new KvEventData.Stored(OptionalLong.of(rootTail[m]), OptionalLong.empty(), blocks)));
      removed[k] = new PoolCommand.Apply(member, PUBLISHER, new RouterEvent(worker(m), StorageTier.DEVICE,
          ResidencyDomain.WORKER, 2L * k + 1, 0, new KvEventData.Removed(ids)));
    }
    // The first LAG ring batches are the in-flight ones the steady state starts removing.
    for (int k = 0; k < LAG; k++) {
      KvEventData.Stored s = (KvEventData.Stored) stored[k].event().data();
      batch.reset(stored[k].member().workerId(), 0).parent(s.parentHash().getAsLong());
      for (StoredBlock b : s.blocks()) {
        batch.addBlock(b.blockHash(), b.tokensHash());
      }
      expectOk(producer.stored(batch));
      if (producer.shouldDrain()) {
        producer.drain();
      }
    }
    producer.drain();
    nextStored = LAG;
    nextRemoved = 0;
    if (producer.mappingCount() != EXPECTED_BLOCKS || producer.residentCount() != EXPECTED_BLOCKS
        || producer.capacityFailures() != 0) {
      throw new IllegalStateException("fill drifted: " + producer.stats());
    }
  }

  private static long worker(int member) {
    return 1 + member;
  }

  private static long hash(int stream, long index) {
    return BenchmarkHashes.at(BenchmarkHashes.stream(stream) + index);
  }

  private static void expectOk(CkfOutcome outcome) {
    if (outcome != CkfOutcome.OK) {
      throw new IllegalStateException("fill event failed: " + outcome);
    }
  }

  // ------------------------------------------------------------------ commands

  /** Submits the Removed of the oldest in-flight batch, then runs the pump. */
  void submitRemoveOldest() {
    PoolCommand.Apply a = removed[nextRemoved];
    nextRemoved = nextRemoved + 1 == ring ? 0 : nextRemoved + 1;
    submit(a);
  }

  /** Submits the next Stored batch, then runs the pump. */
  void submitStoreNext() {
    PoolCommand.Apply a = stored[nextStored];
    nextStored = nextStored + 1 == ring ? 0 : nextStored + 1;
    submit(a);
  }

  /** Submits a Flush, then runs the pump. */
  void submitFlush() {
    submit(PoolCommand.Flush.INSTANCE);
  }

  private void submit(PoolCommand command) {
    SubmitResult r = actor.submit(command);
    if (r != SubmitResult.Accepted.INSTANCE) {
      throw new IllegalStateException("actor refused " + command.getClass().getSimpleName() + ": " + r);
    }
    pump.run();
  }

  // ------------------------------------------------------------------ subscribers

  /** Admits one more in-process subscriber and takes its whole snapshot bootstrap. */
  void subscribe(String subscriberId) throws Exception {
    CompletableFuture<RelayStream<PoolFrame>> f = registry.subscribe(identity.poolId(), identity, subscriberId);
    pump.run();
    RelayStream<PoolFrame> stream = f.get(10, TimeUnit.SECONDS);
    int chunks = Cbi1.chunkCount(BUCKETS);
    long seq = -1;
    for (int taken = 0; taken < chunks; ) {
      PoolFrame frame = stream.poll(10, TimeUnit.SECONDS);
      if (frame == null) {
        throw new IllegalStateException("no snapshot chunk within 10 s");
      }
      if (frame.kind() == PoolFrame.Kind.SNAPSHOT_CHUNK) {
        seq = frame.sequence();
        taken++;
      }
    }
    streams.add(stream);
    lastSequence = Arrays.copyOf(lastSequence, streams.size());
    lastSequence[streams.size() - 1] = seq;
  }

  int subscriberCount() {
    return streams.size();
  }

  /**
   * Polls every subscriber until it has nothing ready; checks each DELTA continues its stream's sequence.
   *
   * @return the payload bytes taken
   */
  long pollAll() throws RelayException {
    long bytes = 0;
    for (int i = 0, n = streams.size(); i < n; i++) {
      RelayStream<PoolFrame> s = streams.get(i);
      PoolFrame f;
      while ((f = s.poll()) != null) {
        bytes += f.payload().length;
        if (f.kindNumber() == PoolFrame.Kind.DELTA.number()) {
          expectNext(i, f);
        }
      }
    }
    return bytes;
  }

  /** Spin-polls subscriber {@code i} until its next DELTA arrives (at most 10 s); returns that frame. */
  PoolFrame awaitDelta(int i) throws RelayException {
    RelayStream<PoolFrame> s = streams.get(i);
    long start = System.nanoTime();
    for (int spins = 0; ; spins++) {
      PoolFrame f = s.poll();
      if (f == null) {
        Thread.onSpinWait();
        if ((spins & 0xFFFF) == 0xFFFF && System.nanoTime() - start > AWAIT_NANOS) {
          throw new IllegalStateException("no delta within 10 s on subscriber " + i);
        }
      } else if (f.kindNumber() == PoolFrame.Kind.DELTA.number()) {
        expectNext(i, f);
        return f;
      }
    }
  }

  private void expectNext(int i, PoolFrame f) {
    if (f.baseSequence() != lastSequence[i] || f.sequence() != lastSequence[i] + 1) {
      throw new IllegalStateException("subscriber " + i + ": delta " + f + " after sequence " + lastSequence[i]);
    }
    lastSequence[i] = f.sequence();
    deltaFrames++;
  }

  /** DELTA frames taken so far, over all subscribers. */
  long deltaFrames() {
    return deltaFrames;
  }

  // ------------------------------------------------------------------ checks and shutdown

  /** The actor's counters (through its mailbox). */
  PoolStats.Actor actorStats() throws Exception {
    CompletableFuture<PoolStats.Actor> f = new CompletableFuture<>();
    submit(new PoolCommand.Stats(f));
    return f.get(10, TimeUnit.SECONDS);
  }

  /**
   * Checks the pipeline is still the fixture it claims: E mappings, no fault, no lag, no drop, every
   * subscriber still attached, and every subscriber took every delta published on the lease, in sequence
   * (all deltas were published on the one lease the first subscriber opened, at wire sequence 0).
   */
  void check() throws Exception {
    PoolStats.Actor a = actorStats();
    CkfProducerStats p = a.producer();
    RelayEngineStats.Hubs h = registry.stats();
    if (p.mappings() != EXPECTED_BLOCKS || p.residentCount() != EXPECTED_BLOCKS || p.capacityFailures() != 0
        || p.parentNotFound() != 0 || p.unknownRemovals() != 0 || p.invariantViolations() != 0 || p.fenced()
        || a.faults() != 0 || a.lags() != 0 || a.listenerErrors() != 0 || a.mailboxFull() != 0
        || a.permitsExhausted() != 0 || actorFaults.get() != 0 || hubFaults.get() != 0 || h.lagged() != 0
        || h.resnapshots() != 0 || h.faults() != 0 || slot.subscriberCount() != streams.size()
        || !allAt(a.publishedDeltas())) {
      throw new IllegalStateException("pipeline drifted: " + a + " / " + h);
    }
  }

  /** True if every subscriber took every delta of the lease (wire sequence = deltas published on it). */
  private boolean allAt(long wireSequence) {
    for (long seq : lastSequence) {
      if (seq != wireSequence) {
        return false;
      }
    }
    return true;
  }

  /** Closes every subscriber and forgets it (the hub stays initialized). */
  void closeSubscribers() {
    for (RelayStream<PoolFrame> s : streams) {
      s.close();
    }
    streams.clear();
    lastSequence = new long[0];
  }

  /** Closes the subscribers, shuts the actor down and closes the registry. */
  void close() throws Exception {
    closeSubscribers();
    CompletableFuture<Void> done = actor.shutdown();
    pump.run();
    done.get(10, TimeUnit.SECONDS);
    registry.close();
  }

  /** Thread-safe (the actor is): the hub's way to the pool actor, as the runtime wires it. */
  private final class ActorSource implements HubSource {
    volatile @Nullable PoolActor actor;

    @Override
    public CompletableFuture<BarrierSnapshot> subscribe(long lease) {
      CompletableFuture<BarrierSnapshot> reply = new CompletableFuture<>();
      PoolActor a = actor;
      if (a == null) {
        reply.completeExceptionally(new IllegalStateException("actor not started"));
        return reply;
      }
      SubmitResult r = a.submit(new PoolCommand.Subscribe(lease, reply));
      if (!r.accepted()) {
        reply.completeExceptionally(new IllegalStateException("subscribe refused: " + r));
      }
      return reply;
    }

    @Override
    public void retireLease(long lease) {
      PoolActor a = actor;
      if (a != null) {
        a.submit(new PoolCommand.RetireLease(lease));
      }
    }
  }
}
