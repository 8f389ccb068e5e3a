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
import dev.kvrelay.engine.hub.HubRegistry;
import dev.kvrelay.engine.hub.HubSettings;
import dev.kvrelay.engine.load.LoadWindowException;
import dev.kvrelay.engine.recovery.RecoverySettings;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.stream.AdmissionPermit;
import dev.kvrelay.engine.stream.RelayAdmission;
import dev.kvrelay.engine.stream.SnapshotWatch;
import dev.kvrelay.engine.stream.StreamHeartbeats;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.RelaySource;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.WireSource;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
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
 *   RelayConsumer router = RelayConsumer.builder()...source("local", relay).build();   // read it in process
 *   ...                            // or serve it to other DCs: RelayGrpcServer.builder().engine(relay).build()
 * }
 * }</pre>
 *
 * <p>Threads: one control thread ({@code kvrelay-control}) applies discovery changes in order, starts and
 * retires pools and publishes the catalog, readiness and load windows; pool actors, recovery and hub timers run
 * on a shared pool ({@code kvrelay-pool-N}, one thread per core by default) where each actor runs at most one
 * task at a time. Subscriber streams are pull-based ({@link RelayStream}) and bounded: a subscriber that does
 * not keep up is cut off with a typed error, never waited for.
 *
 * <p>Subscribing to a pool is {@link PoolSubscriptions}; the engine's queries are {@link EngineQueries}.
 *
 * <p>Failure: a terminal failure of the host (for example the load window publisher's sequence space) completes
 * {@link #terminated()} exceptionally; a fault in one event, source or pool never takes down another.
 *
 * <p>Size: about 500 lines, a third of them Javadoc of the public face; the rest are the construction and
 * orderly close of the parts below, the stream entry points the wire adapter reaches, and the set-once builder
 * (its cross-field validation is {@code RelayConfigValidator}). The running state lives in {@code RelayHost} and
 * the parts it assembles.
 */
public final class RelayEngine implements RelaySource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RelayEngine.class);

  /** Worker recovery queries in flight per relay (producer.md §3.1 {@code recovery_fetch_permit}). */
  public static final int RECOVERY_QUERY_CONCURRENCY = 16;

  static {
    WireSources.register(RelayEngine.class, e -> e.wire);
  }

  private final RelayEngineConfig config;
  private final RelayIdentity identity;
  private final DiscoveryBackend discovery;
  private final LongSupplier nanoTime;
  private final ControlTask control;
  private final ScheduledExecutorService poolExecutor;
  private final ActorScheduler actorScheduler;
  private final HubRegistry hubs;
  private final RelayAdmission admission;
  private final RelayHost host;
  private final Publication publication;
  private final EngineQueries queries;
  private final PoolSubscriptions subscriptions;
  /** The engine's streams as the consumer and the gRPC server read them ({@link WireSources#of}). */
  private final WireSource wire = new EngineWire();
  private @Nullable DiscoveryWatch watch;
  private final java.nio.file.@Nullable Path sourcesFile;
  private final @Nullable String sourcesConnectionRevision;
  private volatile @Nullable SourcesScope sources;

  private RelayEngine(EngineSpec spec) throws RelayEngineException {
    this.config = Objects.requireNonNull(spec.config);
    this.discovery = Objects.requireNonNull(spec.discovery);
    EventPlane eventPlane = Objects.requireNonNull(spec.eventPlane);
    this.sourcesFile = spec.sourcesFile;
    this.sourcesConnectionRevision = spec.sourcesConnectionRevision;
    this.nanoTime = System::nanoTime;
    LongSupplier epochMillis = System::currentTimeMillis;
    long drt = config.drtInstanceId().isPresent() ? config.drtInstanceId().getAsLong() : ProcessInstance.ID;
    long incarnation =
        spec.relayIncarnation != null ? spec.relayIncarnation : RelayIdentity.newRelayIncarnation(spec.random);
    this.identity = new RelayIdentity(drt, incarnation);
    this.control = new ControlTask();
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(spec.poolThreads, daemon("kvrelay-pool"));
    pool.setRemoveOnCancelPolicy(true);
    this.poolExecutor = pool;
    this.actorScheduler = new ExecutorActorScheduler(poolExecutor);
    PoolActorConfig actorConfig = new PoolActorConfig(PoolActorConfig.DEFAULT_MAILBOX_CAPACITY,
        PoolActorConfig.DEFAULT_PENDING_BLOCK_PERMITS, TimeUnit.MILLISECONDS.toNanos(config.publicationDelayMs()));
    RecoverySettings recoverySettings = RecoverySettings.from(config);
    this.admission = RelayAdmission.from(config);
    // The hubs report faults to the host, which is built from them: the callback reads the host when a fault comes,
    // and a fault needs an attached pool generation, which only the running host attaches.
    this.hubs = new HubRegistry(HubSettings.from(config), identity, actorScheduler, nanoTime,
        () -> TimeUnit.MILLISECONDS.toMicros(epochMillis.getAsLong()),
        (pool2, producer, reason, message) ->
            control.execute(() -> host().onHubFault(pool2, producer, reason, message)));
    PoolParts parts = new PoolParts(hubs, actorConfig, actorScheduler, recoverySettings, spec.requestPlane,
        new Semaphore(RECOVERY_QUERY_CONCURRENCY), eventPlane);
    try {
      this.host = new RelayHost(
          new HostServices(config, identity, nanoTime, epochMillis, control, parts, spec.loadPublisher));
    } catch (LoadWindowException e) {
      shutdownExecutors();
      throw new RelayEngineException("load windows could not start: " + e.getMessage(), e);
    }
    this.publication = host.publication();
    this.queries = new EngineQueries(identity, control, host, hubs, publication, admission);
    this.subscriptions = new PoolSubscriptions(control, admission, publication, hubs, poolExecutor);
  }

  private RelayHost host() {
    return host;
  }

  private void start() throws RelayEngineException {
    host.startLoadTicker();
    if (sourcesFile != null) {
      // file mode (producer.md §8.2): the scope comes from the polled sources file, not from config.scope()
      try {
        sources = SourcesScope.start(discovery, sourcesFile, sourcesConnectionRevision,
            first -> new DiscoveryForwarder(control, host, first),
            () -> control.execute(() -> host.onResync(List.of())));
      } catch (RelayEngineException e) {
        close();
        throw e;
      }
      return;
    }
    try {
      watch = discovery.watch(config.scope(), new DiscoveryForwarder(control, host, true));
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
    return publication.catalog();
  }

  /** The current readiness topology. */
  public TopologySnapshot readiness() {
    return publication.readinessWatch.current();
  }

  /**
   * Watches the catalog (WatchKvPoolCatalog, wan-grpc.md §2.3): the current complete catalog at once, a new
   * complete snapshot per change (coalesced), and the current one re-sent every
   * {@code catalog_heartbeat_interval_ms}.
   *
   * @throws RelayException INVALID_REQUEST for a bad subscriber id; RESOURCE_LIMIT when the catalog stream
   *     limit is reached; PUBLICATION_UNAVAILABLE after close
   */
  RelayStream<CatalogUpdate> watchCatalog(String subscriberId) throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.catalog().acquire();
    SnapshotWatch<CatalogUpdate> catalogWatch = publication.catalogWatch;
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
  RelayStream<TopologySnapshot> watchReadiness(String subscriberId) throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.readiness().acquire();
    SnapshotWatch<TopologySnapshot> readinessWatch = publication.readinessWatch;
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
  RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.load().acquire();
    return publication.loadBroadcast.subscribe(permit);
  }

  /**
   * Watches the serving-load windows (SubscribeServingLoad, wan-grpc.md §4.2): same window mechanics as pool load,
   * its own subscriber limit. Every catalog pool is listed with its scheduler view and deployment; models list
   * their serving pools (frontend inputs are not wired in this build, so models report UNAVAILABLE).
   *
   * @throws RelayException INVALID_REQUEST, RESOURCE_LIMIT or PUBLICATION_UNAVAILABLE
   */
  RelayStream<ServingLoadUpdate> watchServingLoad(String subscriberId)
      throws RelayException {
    SubscriberId.check(subscriberId);
    requireOpen();
    AdmissionPermit permit = admission.servingLoad().acquire();
    return publication.servingLoadBroadcast.subscribe(permit);
  }

  /**
   * Subscribes to one pool (SubscribeKvPool, wan-grpc.md §2.4 steps 2–15): completes with a stream of the
   * pool's frames (snapshot chunks at S, then contiguous deltas, heartbeats when idle), or exceptionally with a
   * {@link RelayException}: INVALID_REQUEST (subscriber id), RESOURCE_LIMIT (total pool streams, subscribers
   * per pool, initialized hubs), POOL_NOT_FOUND, PRODUCER_CHANGED (checked before and after the lazy hub
   * init), PUBLICATION_UNAVAILABLE. Never blocks the caller.
   */
  CompletableFuture<RelayStream<PoolFrame>> subscribePool(
      KvPoolId pool, ProducerIdentity expected, String subscriberId) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(expected, "expected");
    return subscriptions.subscribe(pool, expected, subscriberId);
  }

  /** Counters of every part of the engine (a consistent read of each part, not of the whole). */
  public RelayEngineStats stats() {
    return queries.stats();
  }

  /**
   * Completes after every discovery change delivered so far has been applied, and every pool actor has drained
   * what it holds (a Flush through each mailbox). Useful in tests and at controlled points; recovery queries in
   * flight are not waited for.
   */
  public CompletableFuture<Void> sync() {
    return queries.sync();
  }

  /**
   * Diagnostics for tests: a copy of the active generation's producer words of {@code pool} (published or not),
   * or null if the pool is not active.
   */
  CompletableFuture<long @Nullable []> producerWords(KvPoolId pool) {
    return queries.producerWords(pool);
  }

  /** Completes normally after {@link #close()}, exceptionally on a terminal host failure. */
  public CompletableFuture<Void> terminated() {
    return control.terminated();
  }

  /**
   * Stops the relay: closes the discovery watch, publishes an empty catalog and topology, ends every stream
   * (PUBLICATION_UNAVAILABLE for pools and load, clean end for catalog and readiness), fences every actor and
   * stops the threads. Idempotent; waits up to 10 s.
   */
  @Override
  public void close() {
    if (!control.beginClose()) {
      return;
    }
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
      actors = control.submit(host::shutdown).get(10, TimeUnit.SECONDS);
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
    publication.close();
    shutdownExecutors();
    control.terminated().complete(null);
  }

  // ------------------------------------------------------------------ package-private test seams

  /** The hub registry (test seam: {@code EngineFaults} injects hub faults through it). */
  HubRegistry hubs() {
    return hubs;
  }

  /** True once {@link #close()} has begun (the root cancel). */
  boolean closing() {
    return control.closing();
  }

  /** Ends the engine with a terminal host failure (test seam: {@code EngineFaults.failHost}). */
  void fail(Throwable cause) {
    control.fail(cause);
  }

  private void requireOpen() throws RelayException {
    if (control.closing()) {
      throw new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "relay is shut down");
    }
  }

  private void shutdownExecutors() {
    control.shutdownNow();
    poolExecutor.shutdownNow();
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Thread-safe as the engine is: the engine's streams behind its {@link RelaySource} face. */
  private final class EngineWire implements WireSource {
    @Override
    public RelayStream<CatalogUpdate> watchCatalog(String subscriberId) throws RelayException {
      return RelayEngine.this.watchCatalog(subscriberId);
    }

    @Override
    public CompletableFuture<RelayStream<PoolFrame>> subscribePool(
        KvPoolId pool, ProducerIdentity expected, String subscriberId) {
      return RelayEngine.this.subscribePool(pool, expected, subscriberId);
    }

    @Override
    public RelayStream<TopologySnapshot> watchReadiness(String subscriberId) throws RelayException {
      return RelayEngine.this.watchReadiness(subscriberId);
    }

    @Override
    public RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) throws RelayException {
      return RelayEngine.this.watchPoolLoad(subscriberId);
    }

    @Override
    public RelayStream<ServingLoadUpdate> watchServingLoad(String subscriberId) throws RelayException {
      return RelayEngine.this.watchServingLoad(subscriberId);
    }
  }

  /** Not thread-safe: a set-once builder; {@link #build()} validates across fields and starts the engine. */
  public static final class Builder {
    private final EngineSpec spec = new EngineSpec();

    private Builder() {}

    /**
     * File mode ({@code --sources-file}, {@code producer.md} §8.2; optional): the watched namespaces come from this
     * polled JSON document instead of {@link RelayEngineConfig#scope()}, and no endpoint prefix applies. {@link
     * #build()} waits up to 10 s for a first valid document.
     *
     * @param connectionRevision the running relay's {@code DYN_RELAY_CONNECTION_REVISION}, or {@code null}
     */
    public Builder sourcesFile(java.nio.file.Path file, @Nullable String connectionRevision) {
      spec.sourcesFile(file, connectionRevision);
      return this;
    }

    /** The validated configuration (required). */
    public Builder config(RelayEngineConfig value) {
      spec.config(value);
      return this;
    }

    /** The discovery backend to watch (required); the engine does not close it. */
    public Builder discovery(DiscoveryBackend value) {
      spec.discovery(value);
      return this;
    }

    /** The event plane to subscribe on (required); the engine does not close it. */
    public Builder eventPlane(EventPlane value) {
      spec.eventPlane(value);
      return this;
    }

    /**
     * The request plane for worker recovery queries (optional). Without one every source is live-only: on a
     * first event or a gap its rank is reset and re-learned from later events (counted).
     */
    public Builder requestPlane(RequestPlaneClient value) {
      spec.requestPlane(value);
      return this;
    }

    /** A fixed relay incarnation (optional; default: 63 random bits from {@link SecureRandom}). */
    public Builder relayIncarnation(long value) {
      spec.relayIncarnation(value);
      return this;
    }

    /** Threads running pool actors, recovery and hub timers (optional; default: available processors). */
    public Builder poolThreads(int value) {
      spec.poolThreads(value);
      return this;
    }

    /**
     * Test seam (package-private, never part of the public API): wraps the engine's load publisher, for example to
     * make publication fail at a given window sequence. Default: the identity (the engine's broadcasts).
     */
    Builder loadPublisher(UnaryOperator<LoadPublisher> wrapper) {
      spec.loadPublisher(wrapper);
      return this;
    }

    /** The random source of the relay incarnation (tests). */
    Builder random(RandomGenerator value) {
      spec.random(value);
      return this;
    }

    /**
     * Builds and starts the engine: the discovery watch is open when this returns.
     *
     * @throws IllegalStateException naming every missing required part
     * @throws RelayEngineException if the engine cannot start (discovery watch refused)
     */
    public RelayEngine build() throws RelayEngineException {
      spec.requireComplete();
      RelayEngine engine = new RelayEngine(spec);
      engine.start();
      return engine;
    }
  }
}
