package dev.kvrelay.engine;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.SubscriberId;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.consumer.RelaySource;
import dev.kvrelay.engine.hub.HubRegistry;
import dev.kvrelay.engine.hub.HubSettings;
import dev.kvrelay.engine.load.LoadWindowException;
import dev.kvrelay.engine.recovery.RecoverySettings;
import dev.kvrelay.engine.stats.LoadCounters;
import dev.kvrelay.engine.stats.HubRegistryStats;
import dev.kvrelay.engine.stats.PoolActorStats;
import dev.kvrelay.engine.stats.StreamStats;
import dev.kvrelay.engine.stats.WanStreamStats;
import dev.kvrelay.engine.stream.AdmissionPermit;
import dev.kvrelay.engine.stream.RelayAdmission;
import dev.kvrelay.engine.stream.SnapshotWatch;
import dev.kvrelay.engine.stream.StreamHeartbeats;
import dev.kvrelay.engine.stream.WindowBroadcast;
import dev.kvrelay.engine.stream.WindowBroadcastStats;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.CatalogUpdate;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wan.KvPoolLoadUpdate;
import dev.kvrelay.engine.wan.PoolFrame;
import dev.kvrelay.engine.wan.RelayStream;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the embeddable KV relay. One engine watches discovery, materializes a pool per serving endpoint
 * with a single-writer actor each, recovers worker state, and publishes to subscribers exactly what the WAN
 * carries: the pool catalog, per-pool CBI1 frames, serving readiness and load windows.
 *
 * <pre>{@code
 * try (RelayEngine relay = RelayEngine.builder()
 *     .config(RelayEngineConfig.builder().dcId("us-west").watchAll(true).build())
 *     .discovery(discovery)          // e.g. InMemoryDiscovery, or a Kubernetes/etcd provider
 *     .eventPlane(events)            // e.g. InMemoryEventPlane, or NATS/ZMQ
 *     .requestPlane(requests)        // optional: worker recovery queries
 *     .build()) {
 *   RelayStream<CatalogUpdate> catalog = relay.watchCatalog("my-router");
 *   ...
 * }
 * }</pre>
 *
 * <p>Threads: one control thread ({@code kvrelay-control}) applies discovery changes in order, starts and
 * retires pools and publishes the catalog, readiness and load windows; pool actors, recovery and hub timers run
 * on a shared pool ({@code kvrelay-pool-N}, one thread per core by default) where each actor runs at most one
 * task at a time. Subscriber streams are pull-based ({@link RelayStream}) and bounded: a subscriber that does
 * not keep up is cut off with a typed error, never waited for.
 *
 * <p>Failure: a terminal failure of the host (for example the load window publisher's sequence space) completes
 * {@link #terminated()} exceptionally; a fault in one event, source or pool never takes down another.
 */
public final class RelayEngine implements RelaySource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RelayEngine.class);

  /** Worker recovery queries in flight per relay (producer.md §3.1 {@code recovery_fetch_permit}). */
  public static final int RECOVERY_QUERY_CONCURRENCY = 16;

  private final RelayEngineConfig config;
  private final RelayIdentity identity;
  private final DiscoveryBackend discovery;
  private final EventPlane eventPlane;
  private final @Nullable RequestPlaneClient requestPlane;
  private final LongSupplier nanoTime;
  private final LongSupplier epochMillis;
  private final ScheduledExecutorService controlExecutor;
  private final ScheduledExecutorService poolExecutor;
  private final ActorScheduler actorScheduler;
  private final PoolActorConfig actorConfig;
  private final RecoverySettings recoverySettings;
  private final Semaphore recoveryPermits = new Semaphore(RECOVERY_QUERY_CONCURRENCY);
  private final HubRegistry hubs;
  private final RelayAdmission admission;
  private final RelayHost host;
  private final SnapshotWatch<CatalogUpdate> catalogWatch;
  private final SnapshotWatch<TopologySnapshot> readinessWatch;
  private final WindowBroadcast<KvPoolLoadUpdate> loadBroadcast;
  private final WindowBroadcast<dev.kvrelay.engine.wan.ServingLoadUpdate> servingLoadBroadcast;
  private final LoadPublisher loadPublisher;
  private volatile @Nullable ScheduledFuture<?> loadTicker;
  private volatile CatalogSnapshot catalog;
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private volatile boolean closed;
  private @Nullable DiscoveryWatch watch;
  private final java.nio.file.@Nullable Path sourcesFile;
  private final @Nullable String sourcesConnectionRevision;
  private volatile @Nullable SourcesScope sources;

  private RelayEngine(Builder b) throws RelayEngineException {
    this.config = Objects.requireNonNull(b.config);
    this.discovery = Objects.requireNonNull(b.discovery);
    this.eventPlane = Objects.requireNonNull(b.eventPlane);
    this.requestPlane = b.requestPlane;
    this.sourcesFile = b.sourcesFile;
    this.sourcesConnectionRevision = b.sourcesConnectionRevision;
    this.nanoTime = System::nanoTime;
    this.epochMillis = System::currentTimeMillis;
    long drt = config.drtInstanceId().isPresent() ? config.drtInstanceId().getAsLong() : ProcessInstance.ID;
    long incarnation = b.relayIncarnation != null ? b.relayIncarnation : RelayIdentity.newRelayIncarnation(b.random);
    this.identity = new RelayIdentity(drt, incarnation);
    this.controlExecutor = Executors.newSingleThreadScheduledExecutor(daemon("kvrelay-control"));
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(b.poolThreads, daemon("kvrelay-pool"));
    pool.setRemoveOnCancelPolicy(true);
    this.poolExecutor = pool;
    this.actorScheduler = new ExecutorActorScheduler(poolExecutor);
    this.actorConfig = new PoolActorConfig(PoolActorConfig.DEFAULT_MAILBOX_CAPACITY,
        PoolActorConfig.DEFAULT_PENDING_BLOCK_PERMITS, TimeUnit.MILLISECONDS.toNanos(config.publicationDelayMs()));
    this.recoverySettings = RecoverySettings.from(config);
    this.admission = RelayAdmission.from(config);
    this.hubs = new HubRegistry(HubSettings.from(config), identity, actorScheduler, nanoTime,
        () -> TimeUnit.MILLISECONDS.toMicros(epochMillis.getAsLong()),
        (pool2, producer, reason, message) -> control(() -> host().onHubFault(pool2, producer, reason, message)));
    try {
      this.host = new RelayHost(this, epochMillis.getAsLong());
    } catch (LoadWindowException e) {
      shutdownExecutors();
      throw new RelayEngineException("load windows could not start: " + e.getMessage(), e);
    }
    this.catalog = host.catalogSnapshot();
    this.catalogWatch = new SnapshotWatch<>(CatalogUpdate.ofDescriptors(identity, catalog.revision(), catalog.pools()));
    this.readinessWatch = new SnapshotWatch<>(host.topologySnapshot());
    this.loadBroadcast = new WindowBroadcast<>(config.loadFanoutCapacity(), host.initialLoadWindow(),
        KvPoolLoadUpdate::windowSequence);
    this.servingLoadBroadcast = new WindowBroadcast<>(config.loadFanoutCapacity(), host.initialServingLoadWindow(),
        dev.kvrelay.engine.wan.ServingLoadUpdate::windowSequence);
    this.loadPublisher = Objects.requireNonNull(b.loadPublisher.apply(new BroadcastLoadPublisher()),
        "load publisher wrapper returned null");
  }

  private RelayHost host() {
    return host;
  }

  private void start() throws RelayEngineException {
    long windowMs = config.value(RelayConfigKey.LOAD_WINDOW_MS);
    loadTicker = controlExecutor.scheduleAtFixedRate(
        () -> guarded(host::tickLoad), windowMs, windowMs, TimeUnit.MILLISECONDS);
    if (sourcesFile != null) {
      // file mode (producer.md §8.2): the scope comes from the polled sources file, not from config.scope()
      try {
        sources = SourcesScope.start(discovery, sourcesFile, sourcesConnectionRevision, Forwarder::new,
            () -> control(() -> host.onResync(List.of())));
      } catch (RelayEngineException e) {
        close();
        throw e;
      }
      return;
    }
    try {
      watch = discovery.watch(config.scope(), new Forwarder(true));
    } catch (DiscoveryException e) {
      close();
      throw new RelayEngineException("discovery watch failed: " + e.getMessage(), e);
    }
  }

  /**
   * The sources-file status in file mode ({@code producer.md} §8.2: desired and applied revision, count, last error),
   * else empty.
   */
  public java.util.Optional<dev.kvrelay.spi.discovery.sources.SourcesStatus> sourcesStatus() {
    SourcesScope s = sources;
    return s == null ? java.util.Optional.empty() : java.util.Optional.of(s.status());
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  // ------------------------------------------------------------------ public API

  /** This relay start's identity (runtime instance id and incarnation). */
  public RelayIdentity identity() {
    return identity;
  }

  /** The configuration the engine runs with. */
  public RelayEngineConfig config() {
    return config;
  }

  /** The current catalog: only active pool generations, in pool-id order. */
  public CatalogSnapshot catalog() {
    return catalog;
  }

  /** The current readiness topology. */
  public TopologySnapshot readiness() {
    return readinessWatch.current();
  }

  /**
   * Watches the catalog (WatchKvPoolCatalog, wan-grpc.md §2.3): the current complete catalog at once, a new
   * complete snapshot per change (coalesced), and the current one re-sent every
   * {@code catalog_heartbeat_interval_ms}.
   *
   * @throws RelayException INVALID_REQUEST for a bad subscriber id; RESOURCE_LIMIT when the catalog stream
   *     limit is reached; PUBLICATION_UNAVAILABLE after close
   */
  @Override
  public RelayStream<CatalogUpdate> watchCatalog(String subscriberId) throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.catalog().acquire();
    RelayStream<CatalogUpdate> s = catalogWatch.subscribe(permit);
    return StreamHeartbeats.every(s, catalogWatch::current, config.value(RelayConfigKey.CATALOG_HEARTBEAT_INTERVAL_MS),
        actorScheduler, nanoTime);
  }

  /**
   * Watches serving readiness (SubscribeServingReadiness, wan-grpc.md §5): the current snapshot at once, one per
   * change, and the current one re-sent every {@code readiness_heartbeat_interval_ms}.
   *
   * @throws RelayException INVALID_REQUEST, RESOURCE_LIMIT or PUBLICATION_UNAVAILABLE
   */
  @Override
  public RelayStream<TopologySnapshot> watchReadiness(String subscriberId) throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.readiness().acquire();
    RelayStream<TopologySnapshot> s = readinessWatch.subscribe(permit);
    return StreamHeartbeats.every(s, readinessWatch::current,
        config.value(RelayConfigKey.READINESS_HEARTBEAT_INTERVAL_MS), actorScheduler, nanoTime);
  }

  /**
   * Watches the pool load windows (SubscribeKvPoolLoad, wan-grpc.md §4.1): the latest window at once, then
   * every newer window; a subscriber that falls behind the ring ends with SUBSCRIBER_LAGGED.
   *
   * @throws RelayException INVALID_REQUEST, RESOURCE_LIMIT or PUBLICATION_UNAVAILABLE
   */
  @Override
  public RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.load().acquire();
    return loadBroadcast.subscribe(permit);
  }

  /**
   * Watches the serving-load windows (SubscribeServingLoad, wan-grpc.md §4.2): same window mechanics as pool load,
   * its own subscriber limit. Every catalog pool is listed with its scheduler view and deployment; models list
   * their serving pools (frontend inputs are not wired in this build, so models report UNAVAILABLE).
   *
   * @throws RelayException INVALID_REQUEST, RESOURCE_LIMIT or PUBLICATION_UNAVAILABLE
   */
  public RelayStream<dev.kvrelay.engine.wan.ServingLoadUpdate> watchServingLoad(String subscriberId)
      throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.servingLoad().acquire();
    return servingLoadBroadcast.subscribe(permit);
  }

  /**
   * Subscribes to one pool (SubscribeKvPool, wan-grpc.md §2.4 steps 2–15): completes with a stream of the
   * pool's frames (snapshot chunks at S, then contiguous deltas, heartbeats when idle), or exceptionally with a
   * {@link RelayException}: INVALID_REQUEST (subscriber id), RESOURCE_LIMIT (total pool streams, subscribers
   * per pool, initialized hubs), POOL_NOT_FOUND, PRODUCER_CHANGED (checked before and after the lazy hub
   * init), PUBLICATION_UNAVAILABLE. Never blocks the caller.
   */
  @Override
  public CompletableFuture<RelayStream<PoolFrame>> subscribePool(
      KvPoolId pool, ProducerIdentity expected, String subscriberId) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(expected, "expected");
    AdmissionPermit permit = null;
    try {
      SubscriberId.check(subscriberId);
      requireOpen();
      if (!expected.poolId().equals(pool)) {
        throw new RelayException(RelayErrorReason.INVALID_REQUEST, "expected producer names pool "
            + expected.poolId() + ", not " + pool);
      }
      permit = admission.poolStreams().acquire();
      KvPoolDescriptor listed = catalog.find(pool).orElseThrow(
          () -> new RelayException(RelayErrorReason.POOL_NOT_FOUND, "pool " + pool + " is not in the catalog"));
      if (!listed.producer().equals(expected)) {
        throw new RelayException(RelayErrorReason.PRODUCER_CHANGED,
            "pool " + pool + " is served by " + listed.producer() + ", not " + expected);
      }
    } catch (RelayException e) {
      if (permit != null) {
        permit.close();
      }
      return CompletableFuture.failedFuture(e);
    }
    AdmissionPermit held = permit;
    // Async: the hub may complete on the pool actor's thread; callers' continuations must never run there.
    return hubs.subscribe(pool, expected, subscriberId)
        .<RelayStream<PoolFrame>>thenApplyAsync(s -> new PermitStream<>(s, held), poolExecutor)
        .whenComplete((s, e) -> {
          if (e != null) {
            held.close();
          }
        });
  }

  /** Counters of every part of the engine (a consistent read of each part, not of the whole). */
  public RelayEngineStats stats() {
    List<PoolStats> pools = new ArrayList<>();
    // The load aggregators are confined to the control thread: their counters are read there, with the list.
    List<Map.Entry<PoolRuntime, LoadCounters>> runtimes;
    try {
      runtimes = controlExecutor.submit(() -> host.runtimes().stream()
          .map(r -> Map.entry(r, r.load.counters())).toList()).get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      runtimes = List.of();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      runtimes = List.of();
    }
    for (Map.Entry<PoolRuntime, LoadCounters> entry : runtimes) {
      PoolRuntime r = entry.getKey();
      PoolActorStats actor = r.actorStats(5_000);
      pools.add(new PoolStats(r.descriptor, actor, r.recovery.stats(), entry.getValue()));
    }
    HubRegistryStats hubStats = hubs.stats();
    HostCounters c = host.counters();
    return new RelayEngineStats(identity, catalog.revision(), readinessWatch.current().revision(), pools,
        hubStats, c.reconciles.sum(), c.poolStarts.sum(), c.poolStartFailures.sum(),
        c.gracefulRetirements.sum(), c.fencedRetirements.sum(), c.sourceFaults.sum(),
        c.rejectedSources.sum(), c.hubFaults.sum(), c.discoveryErrors.sum(), c.discoveryDecodeErrors.sum(),
        c.eventDecodeErrors.sum(), c.loadObservations.sum(), c.loadRejected.sum(),
        c.unexpectedMessages.sum(), c.channelErrors.sum(), c.faultQueueOverflows.sum(),
        c.loadPublishErrors.sum(), streamStats(hubStats), c.planeFaultCounts());
  }

  /** The per-stream-type gauges and counters (wan-grpc §8); the pool stream's lag comes from the hubs. */
  private WanStreamStats streamStats(HubRegistryStats hubStats) {
    WindowBroadcastStats load = loadBroadcast.stats();
    WindowBroadcastStats servingLoad = servingLoadBroadcast.stats();
    int degraded = 0;
    for (KvPoolLoadEntry e : loadBroadcast.current().pools()) {
      if (e.totalKvBlocks() == 0 || e.kvObservedRanks() < e.kvExpectedRanks()) {
        degraded++;
      }
    }
    return new WanStreamStats(
        new StreamStats(admission.catalog().inUse(), 0, admission.catalog().refused()),
        new StreamStats(admission.poolStreams().inUse(), hubStats.lagged(), admission.poolStreams().refused()),
        new StreamStats(admission.readiness().inUse(), 0, admission.readiness().refused()),
        new StreamStats(admission.load().inUse(), load.lagged(), admission.load().refused()),
        new StreamStats(admission.servingLoad().inUse(), servingLoad.lagged(), admission.servingLoad().refused()),
        load.published(), servingLoad.published(), degraded);
  }

  /**
   * Completes after every discovery change delivered so far has been applied, and every pool actor has drained
   * what it holds (a Flush through each mailbox). Useful in tests and at controlled points; recovery queries in
   * flight are not waited for.
   */
  public CompletableFuture<Void> sync() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      controlExecutor.execute(() -> {
        List<CompletableFuture<PoolActorStats>> replies = new ArrayList<>();
        for (PoolRuntime r : host.runtimes()) {
          r.actor.submit(dev.kvrelay.engine.actor.PoolCommand.Flush.INSTANCE);
          CompletableFuture<PoolActorStats> reply = new CompletableFuture<>();
          if (r.actor.submit(new dev.kvrelay.engine.actor.PoolCommand.Stats(reply)).accepted()) {
            replies.add(reply);
          }
        }
        CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
            .whenComplete((v, e) -> done.complete(null));
      });
    } catch (RejectedExecutionException e) {
      done.complete(null);
    }
    return done;
  }

  /**
   * Diagnostics for tests: a copy of the active generation's producer words of {@code pool} (published or not),
   * or null if the pool is not active.
   */
  CompletableFuture<long @Nullable []> producerWords(KvPoolId pool) {
    CompletableFuture<long @Nullable []> out = new CompletableFuture<>();
    control(() -> {
      for (PoolRuntime r : host.runtimes()) {
        if (r.poolId().equals(pool)) {
          CompletableFuture<long[]> reply = new CompletableFuture<>();
          if (r.actor.submit(new dev.kvrelay.engine.actor.PoolCommand.CopyWords(reply)).accepted()) {
            reply.whenComplete((w, e) -> out.complete(w));
          } else {
            out.complete(null);
          }
          return;
        }
      }
      out.complete(null);
    });
    return out;
  }

  /** Completes normally after {@link #close()}, exceptionally on a terminal host failure. */
  public CompletableFuture<Void> terminated() {
    return terminated;
  }

  /**
   * Stops the relay: closes the discovery watch, publishes an empty catalog and topology, ends every stream
   * (PUBLICATION_UNAVAILABLE for pools and load, clean end for catalog and readiness), fences every actor and
   * stops the threads. Idempotent; waits up to 10 s.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    DiscoveryWatch w = watch;
    if (w != null) {
      w.close();
    }
    SourcesScope s = sources;
    if (s != null) {
      s.close();
    }
    List<CompletableFuture<Void>> actors = new ArrayList<>();
    try {
      actors = controlExecutor.submit(host::shutdown).get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      LOG.warn("relay shutdown: control task did not finish", e);
    }
    try {
      CompletableFuture.allOf(actors.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("relay shutdown: pool actors did not stop in time", e);
    }
    hubs.close();
    catalogWatch.close();
    readinessWatch.close();
    loadBroadcast.close();
    servingLoadBroadcast.close();
    shutdownExecutors();
    terminated.complete(null);
  }

  // ------------------------------------------------------------------ package-private plumbing for RelayHost

  long nanoTime() {
    return nanoTime.getAsLong();
  }

  long epochMillis() {
    return epochMillis.getAsLong();
  }

  HubRegistry hubs() {
    return hubs;
  }

  PoolActorConfig actorConfig() {
    return actorConfig;
  }

  ActorScheduler actorScheduler() {
    return actorScheduler;
  }

  RecoverySettings recoverySettings() {
    return recoverySettings;
  }

  @Nullable RequestPlaneClient requestPlane() {
    return requestPlane;
  }

  Semaphore recoveryPermits() {
    return recoveryPermits;
  }

  EventPlane eventPlane() {
    return eventPlane;
  }

  /** Runs {@code task} on the control thread (dropped after close). */
  void control(Runnable task) {
    try {
      controlExecutor.execute(() -> guarded(task));
    } catch (RejectedExecutionException e) {
      LOG.debug("control task dropped: relay stopped");
    }
  }

  /** Runs {@code task} on the control thread after {@code delayMs}. */
  void controlAfter(long delayMs, Runnable task) {
    try {
      controlExecutor.schedule(() -> guarded(task), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("control timer dropped: relay stopped");
    }
  }

  void publishCatalog(CatalogSnapshot snapshot, CatalogUpdate update) {
    catalog = snapshot;
    catalogWatch.publish(update);
  }

  void publishReadiness(TopologySnapshot snapshot) {
    readinessWatch.publish(snapshot);
  }

  /** Where the load ticker publishes its windows: the broadcasts, or a test seam's wrapper around them. */
  LoadPublisher loadPublisher() {
    return loadPublisher;
  }

  /** Stops the load ticker for good (after a load publisher failure); idempotent. */
  void stopLoadTicker() {
    ScheduledFuture<?> t = loadTicker;
    if (t != null) {
      t.cancel(false);
    }
  }

  /** True once {@link #close()} has begun (the root cancel). */
  boolean closing() {
    return closed;
  }

  void fail(Throwable cause) {
    LOG.error("relay host failed", cause);
    terminated.completeExceptionally(cause);
  }

  private void guarded(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      // An unexpected exception in the control task is a terminal host failure (producer.md §2.6).
      fail(e);
    }
  }

  private void requireOpen() throws RelayException {
    if (closed) {
      throw new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "relay is shut down");
    }
  }

  private void shutdownExecutors() {
    controlExecutor.shutdownNow();
    poolExecutor.shutdownNow();
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix.equals("kvrelay-control") ? prefix : prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Confined to the control task (the load ticker): the engine's own load publisher, its two window broadcasts. */
  private final class BroadcastLoadPublisher implements LoadPublisher {
    @Override
    public void poolLoad(KvPoolLoadUpdate window) {
      loadBroadcast.publish(window);
    }

    @Override
    public void servingLoad(dev.kvrelay.engine.wan.ServingLoadUpdate window) {
      servingLoadBroadcast.publish(window);
    }
  }

  /**
   * Confined to the discovery watch's delivery thread: hands every callback, in order, to the control task. A watch
   * that replaces another (file mode) hands its first state over as a resync, which the host diffs.
   */
  private final class Forwarder implements DiscoveryListener {
    private final boolean firstWatch;

    Forwarder(boolean firstWatch) {
      this.firstWatch = firstWatch;
    }

    @Override
    public void onSnapshot(List<DiscoveryRecord> records) {
      control(() -> {
        if (firstWatch) {
          host.onSnapshot(records);
        } else {
          host.onResync(records);
        }
      });
    }

    @Override
    public void onUpserted(DiscoveryRecord record) {
      control(() -> host.onUpserted(record));
    }

    @Override
    public void onRemoved(DiscoveryKey key) {
      control(() -> host.onRemoved(key));
    }

    @Override
    public void onModelTaintsUpdated(ModelKey key, List<String> taints) {
      control(() -> host.onModelTaintsUpdated(key, taints));
    }

    @Override
    public void onResync(List<DiscoveryRecord> records) {
      control(() -> host.onResync(records));
    }

    @Override
    public void onError(DiscoveryException error) {
      control(() -> host.onError(error));
    }
  }

  /**
   * Thread-safe as its delegate: a pool stream that gives back its total-pool-stream permit when it is
   * closed or has finished.
   */
  private static final class PermitStream<T> implements RelayStream<T> {
    private final RelayStream<T> delegate;
    private final AdmissionPermit permit;

    PermitStream(RelayStream<T> delegate, AdmissionPermit permit) {
      this.delegate = delegate;
      this.permit = permit;
    }

    @Override
    public @Nullable T poll() throws RelayException {
      try {
        return delegate.poll();
      } finally {
        releaseIfFinished();
      }
    }

    @Override
    public @Nullable T poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException {
      try {
        return delegate.poll(timeout, unit);
      } finally {
        releaseIfFinished();
      }
    }

    @Override
    public void onAvailable(Runnable callback) {
      delegate.onAvailable(callback);
    }

    @Override
    public boolean isFinished() {
      return delegate.isFinished();
    }

    @Override
    public void close() {
      delegate.close();
      permit.close();
    }

    private void releaseIfFinished() {
      if (delegate.isFinished()) {
        permit.close();
      }
    }
  }

  /**
   * Immutable and thread-safe: this process's runtime instance id when none is configured (producer.md §1.1 decision
   * (b)): 53 random bits, drawn once per process, so it stays constant across in-process relay restarts while each
   * start gets a new incarnation.
   */
  static final class ProcessInstance {
    static final long ID = new SecureRandom().nextLong() & 0x001F_FFFF_FFFF_FFFFL;

    private ProcessInstance() {}
  }

  /** Not thread-safe: a set-once builder; {@link #build()} validates across fields and starts the engine. */
  public static final class Builder {
    private @Nullable RelayEngineConfig config;
    private @Nullable DiscoveryBackend discovery;
    private @Nullable EventPlane eventPlane;
    private @Nullable RequestPlaneClient requestPlane;
    private @Nullable Long relayIncarnation;
    private RandomGenerator random = new SecureRandom();
    private int poolThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
    private boolean poolThreadsSet;
    private UnaryOperator<LoadPublisher> loadPublisher = UnaryOperator.identity();
    private java.nio.file.@Nullable Path sourcesFile;
    private @Nullable String sourcesConnectionRevision;

    private Builder() {}

    /**
     * File mode ({@code --sources-file}, {@code producer.md} §8.2; optional): the watched namespaces come from this
     * polled JSON document instead of {@link RelayEngineConfig#scope()}, and no endpoint prefix applies. {@link
     * #build()} waits up to 10 s for a first valid document.
     *
     * @param connectionRevision the running relay's {@code DYN_RELAY_CONNECTION_REVISION}, or {@code null}
     */
    public Builder sourcesFile(java.nio.file.Path file, @Nullable String connectionRevision) {
      sourcesFile = setOnce(sourcesFile, file, "sourcesFile");
      sourcesConnectionRevision = connectionRevision;
      return this;
    }

    /** The validated configuration (required). */
    public Builder config(RelayEngineConfig value) {
      config = setOnce(config, value, "config");
      return this;
    }

    /** The discovery backend to watch (required); the engine does not close it. */
    public Builder discovery(DiscoveryBackend value) {
      discovery = setOnce(discovery, value, "discovery");
      return this;
    }

    /** The event plane to subscribe on (required); the engine does not close it. */
    public Builder eventPlane(EventPlane value) {
      eventPlane = setOnce(eventPlane, value, "eventPlane");
      return this;
    }

    /**
     * The request plane for worker recovery queries (optional). Without one every source is live-only: on a
     * first event or a gap its rank is reset and re-learned from later events (counted).
     */
    public Builder requestPlane(RequestPlaneClient value) {
      requestPlane = setOnce(requestPlane, value, "requestPlane");
      return this;
    }

    /** A fixed relay incarnation (optional; default: 63 random bits from {@link SecureRandom}). */
    public Builder relayIncarnation(long value) {
      relayIncarnation = setOnce(relayIncarnation, value, "relayIncarnation");
      return this;
    }

    /** Threads running pool actors, recovery and hub timers (optional; default: available processors). */
    public Builder poolThreads(int value) {
      if (poolThreadsSet) {
        throw new IllegalStateException("poolThreads was already set");
      }
      if (value < 1) {
        throw new IllegalArgumentException("poolThreads must be at least 1, got " + value);
      }
      poolThreads = value;
      poolThreadsSet = true;
      return this;
    }

    /**
     * Test seam (package-private, never part of the public API): wraps the engine's load publisher, for example to
     * make publication fail at a given window sequence. Default: the identity (the engine's broadcasts).
     */
    Builder loadPublisher(UnaryOperator<LoadPublisher> wrapper) {
      loadPublisher = Objects.requireNonNull(wrapper, "wrapper");
      return this;
    }

    /** The random source of the relay incarnation (tests). */
    Builder random(RandomGenerator value) {
      random = Objects.requireNonNull(value);
      return this;
    }

    /**
     * Builds and starts the engine: the discovery watch is open when this returns.
     *
     * @throws IllegalStateException naming every missing required part
     * @throws RelayEngineException if the engine cannot start (discovery watch refused)
     */
    public RelayEngine build() throws RelayEngineException {
      List<String> missing = new ArrayList<>();
      if (config == null) {
        missing.add("config");
      }
      if (discovery == null) {
        missing.add("discovery");
      }
      if (eventPlane == null) {
        missing.add("eventPlane");
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException("RelayEngine.builder() is missing " + String.join(", ", missing));
      }
      RelayEngine engine = new RelayEngine(this);
      engine.start();
      return engine;
    }

    private static <T> T setOnce(@Nullable T current, T value, String name) {
      Objects.requireNonNull(value, name);
      if (current != null) {
        throw new IllegalStateException(name + " was already set");
      }
      return value;
    }
  }
}
