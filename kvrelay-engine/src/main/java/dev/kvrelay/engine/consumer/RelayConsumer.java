package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.SubscriberId;
import dev.kvrelay.ckf.consumer.GlobalCkfBuildException;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.wan.CatalogUpdate;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadUpdate;
import dev.kvrelay.engine.wan.PoolFrame;
import dev.kvrelay.engine.wan.ReadinessUpdate;
import dev.kvrelay.engine.wan.RelayStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: all state is confined to one serial consumer task (on the caller's executor, or on one daemon
 * thread the consumer owns and stops on {@link #close()}); {@link #query}, {@link #readiness}, {@link #load},
 * {@link #replicaStates}, {@link #stats}, {@link #start} and {@link #close} may be called from any thread. The JVM router's one-stop consumer (wan-grpc.md §7): it reads up to 16
 * {@link RelaySource}s (one per DC) for one indexer domain, keeps a {@code GlobalView} fed and answers
 * "tokens → matched prefix depth and tokens per DC pool".
 *
 * <p>Per source it keeps, as independent state machines (§7.1): the catalog ({@link CatalogView}), one
 * {@code PoolReplica} per pool of the domain, the readiness ({@link ReadinessView}) and the pool load
 * ({@code LoadView}). A catalog change is reconciled against the global view: pools of the domain that are new,
 * or listed with a new ProducerKey, are assigned a lane and subscribed; pools gone, quarantined or re-keyed are
 * unsubscribed and unassigned. Because each change of the lane mapping publishes a fresh indexer (see
 * {@code GlobalView}), every replica is then rebound on the new indexer and resubscribed (new lease, new
 * snapshot). Frames are drained on the consumer task when the stream signals availability; streams are polled,
 * never waited on, so nothing blocks the scheduler.
 *
 * <p>Failures (§7.4 step 6, §7.6): a replica's own failure, a pool stream error or a clean EOF invalidates only
 * that replica and resubscribes it after backoff; {@code CONTRACT_MISMATCH} and {@code INVALID_REQUEST} (and a
 * marker or version mismatch) stop the source for good; a catalog stream failure, a catalog revision error or a
 * relay identity change drops all of the source's state and reconnects after backoff. Readiness and load
 * streams are reopened on their own after backoff and never touch CKF state. A replica silent for longer than
 * the max-age is invalidated ({@link ReplicaTermination#STALE}) by a periodic sweep. Everything is counted in
 * {@link #stats()}.
 *
 * <p>Clocks: replica freshness and queries use the monotonic {@code nanoTime} clock (in µs); readiness and load
 * receive times use the {@code epochMicros} clock.
 */
public final class RelayConsumer implements AutoCloseable {
  /** At most one source per lane of the global view. */
  public static final int MAX_SOURCES = GlobalView.LANES;
  /** The subscriber id base leaves room for the longest suffix within the 128-byte limit (§2.1, §7.6). */
  public static final int MAX_SUBSCRIBER_BASE_BYTES = 118;

  static final String CATALOG_SUFFIX = "/catalog";
  static final String CKF_SUFFIX = "/ckf";
  static final String READINESS_SUFFIX = "/readiness";
  static final String LOAD_SUFFIX = "/load";
  private static final int DRAIN_BUDGET = 256;

  private final long consumerInstance;
  private final GlobalView view;
  private final long maxAgeUs;
  private final String subscriberBase;
  private final ActorScheduler scheduler;
  /** The executor the consumer created and shuts down on close, or null when the caller owns it. */
  private final @Nullable ScheduledExecutorService ownedExecutor;
  private final LongSupplier nanoTime;
  private final LongSupplier epochMicros;
  private final BackoffPolicy backoff;
  private final SplittableRandom random;
  private final List<Source> sources;
  private final Map<String, Source> byName;

  // ---- confined to the consumer task
  private final Map<KvPoolId, Session> sessions = new LinkedHashMap<>();
  private Set<List<Object>> refusedKeys = new HashSet<>();
  private long leaseEpoch;
  private boolean started;

  // ---- published for any thread
  private volatile boolean closed;
  private volatile List<ReplicaStatus> replicaStates = List.of();

  // ---- counters: single writer (the consumer task), read from any thread
  private final AtomicLong subscriptions = new AtomicLong();
  private final AtomicLong resubscriptions = new AtomicLong();
  private final AtomicLong framesApplied = new AtomicLong();
  private final AtomicLongArray invalidations = new AtomicLongArray(ReplicaTermination.values().length);
  private final AtomicLongArray poolStreamErrors = new AtomicLongArray(RelayErrorReason.values().length);
  private final AtomicLongArray catalogRejections = new AtomicLongArray(CatalogError.values().length);
  private final AtomicLong watchErrors = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong sourcesStopped = new AtomicLong();
  private final AtomicLong quarantinedDescriptors = new AtomicLong();
  private final AtomicLong refusedLanes = new AtomicLong();
  private final AtomicLong staleCallbacks = new AtomicLong();

  private RelayConsumer(Builder b) {
    this.consumerInstance = b.consumerInstance;
    this.maxAgeUs = b.maxAgeUs;
    this.view = GlobalView.create(b.consumerInstance, Objects.requireNonNull(b.domain),
        Objects.requireNonNull(b.format), Objects.requireNonNull(b.semantics), b.maxAgeUs);
    this.subscriberBase = Objects.requireNonNull(b.subscriberIdBase);
    if (b.scheduler != null) {
      this.scheduler = b.scheduler;
      this.ownedExecutor = null;
    } else if (b.executor != null) {
      this.scheduler = new ExecutorActorScheduler(b.executor);
      this.ownedExecutor = null;
    } else {
      ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, daemonThreads(b.subscriberIdBase));
      own.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      own.setRemoveOnCancelPolicy(true);
      this.ownedExecutor = own;
      this.scheduler = new OwnedScheduler(own);
    }
    this.nanoTime = Objects.requireNonNull(b.nanoTime);
    this.epochMicros = Objects.requireNonNull(b.epochMicros);
    this.backoff = b.backoff == null ? BackoffPolicy.DEFAULT : b.backoff;
    this.random = new SplittableRandom(b.randomSeed == null ? System.nanoTime() : b.randomSeed);
    List<Source> list = new ArrayList<>();
    Map<String, Source> names = new LinkedHashMap<>();
    for (Map.Entry<String, RelaySource> e : b.sources.entrySet()) {
      Source s = new Source(e.getKey(), e.getValue());
      list.add(s);
      names.put(e.getKey(), s);
    }
    this.sources = List.copyOf(list);
    this.byName = Map.copyOf(names);
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  // ================================================================ public API (any thread)

  /** Opens every source's streams (on the consumer task). Idempotent; ignored after {@link #close()}. */
  public void start() {
    scheduler.execute(this::startTask);
  }

  /**
   * Per-DC prefix depths of {@code tokens} for the pools serving {@code model}, named either by a registration's
   * canonical model id or by one of its aliases (each pool salted by the target of the registration that
   * matched); any thread, no lock. Every match is also keyed by the name its source was given in
   * {@link Builder#source} ({@link GlobalViewAnswer#bySource()}).
   */
  public GlobalViewAnswer query(int @Nullable [] tokens, @Nullable String model) {
    GlobalViewAnswer answer = view.queryModel(tokens, model, monoUs());
    if (answer.matches().isEmpty()) {
      return answer;
    }
    List<ReplicaStatus> states = replicaStates;
    return answer.withSources(pool -> {
      for (ReplicaStatus s : states) {
        if (s.pool().equals(pool)) {
          return s.source();
        }
      }
      return null;
    });
  }

  /** The readiness of source {@code sourceName}, or empty for an unknown name. */
  public Optional<ReadinessSnapshot> readiness(String sourceName) {
    Source s = byName.get(sourceName);
    return s == null ? Optional.empty() : Optional.of(s.readiness);
  }

  /** The pool load of source {@code sourceName}, or empty for an unknown name. */
  public Optional<LoadSnapshot> load(String sourceName) {
    Source s = byName.get(sourceName);
    return s == null ? Optional.empty() : Optional.of(s.load);
  }

  /** The replicas as last published, in assignment order. */
  public List<ReplicaStatus> replicaStates() {
    return replicaStates;
  }

  /** The counters now. */
  public ConsumerStats stats() {
    return new ConsumerStats(subscriptions.get(), resubscriptions.get(), framesApplied.get(),
        toMap(ReplicaTermination.values(), invalidations), toMap(RelayErrorReason.values(), poolStreamErrors),
        toMap(CatalogError.values(), catalogRejections), watchErrors.get(), reconnects.get(), sourcesStopped.get(),
        quarantinedDescriptors.get(), refusedLanes.get(), staleCallbacks.get());
  }

  private static <E extends Enum<E>> Map<E, Long> toMap(E[] values, AtomicLongArray counts) {
    Map<E, Long> m = new EnumMap<>(values[0].getDeclaringClass());
    for (E v : values) {
      long n = counts.get(v.ordinal());
      if (n != 0) {
        m.put(v, n);
      }
    }
    return m;
  }

  /**
   * Closes every stream (on the consumer task) and stops all retries; a consumer that owns its thread (no
   * {@link Builder#executor executor} given) stops it once that last task ran. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    scheduler.execute(this::closeTask);
    ScheduledExecutorService own = ownedExecutor;
    if (own != null) {
      own.shutdown(); // the queued close task still runs; pending timers are dropped
    }
  }

  private static ThreadFactory daemonThreads(@Nullable String subscriberBase) {
    String name = "kvrelay-consumer-" + subscriberBase;
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Thread-safe: the scheduler over the consumer's own executor; work offered after {@link #close()} shut it
   * down (late stream callbacks, timers) is dropped without a warning, since nothing is left to do.
   */
  private static final class OwnedScheduler implements ActorScheduler {
    private final ScheduledExecutorService executor;

    OwnedScheduler(ScheduledExecutorService executor) {
      this.executor = executor;
    }

    @Override
    public void execute(Runnable task) {
      if (!executor.isShutdown()) {
        try {
          executor.execute(task);
        } catch (RejectedExecutionException e) {
          // closed concurrently: the close task already dropped all state
        }
      }
    }

    @Override
    public void schedule(Runnable task, long delayNanos) {
      if (!executor.isShutdown()) {
        try {
          executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          // closed concurrently
        }
      }
    }
  }

  /** The global view (tests and diagnostics; mutate only from the consumer task). */
  GlobalView globalView() {
    return view;
  }

  // ================================================================ consumer task

  private long monoUs() {
    return nanoTime.getAsLong() / 1_000L;
  }

  private static void increment(AtomicLong counter) {
    counter.lazySet(counter.get() + 1);
  }

  private static void increment(AtomicLongArray counters, int index) {
    counters.lazySet(index, counters.get(index) + 1);
  }

  private void startTask() {
    if (started || closed) {
      return;
    }
    started = true;
    for (Source s : sources) {
      s.catalogWatch.open();
    }
    scheduleSweep();
  }

  private void closeTask() {
    for (Source s : sources) {
      s.dropState();
    }
    for (Session s : sessions.values()) {
      s.dropped = true;
      s.detach();
    }
    sessions.clear();
    publishStates();
  }

  private void scheduleSweep() {
    scheduler.schedule(this::sweep, Math.max(1L, maxAgeUs * 1_000L / 2));
  }

  /** Invalidates replicas silent for longer than the max-age (§7.4 step 7). */
  private void sweep() {
    if (closed) {
      return;
    }
    long now = monoUs();
    for (Session s : new ArrayList<>(sessions.values())) {
      PoolReplica r = s.replica;
      if (s.dropped || r == null) {
        continue;
      }
      PoolReplica.FrameResult res = r.expireIfStale(now);
      if (res != null) {
        s.detach();
        s.onInvalidated(ReplicaTermination.STALE);
      }
    }
    scheduleSweep();
  }

  private static boolean fatal(RelayErrorReason reason) {
    return reason == RelayErrorReason.CONTRACT_MISMATCH || reason == RelayErrorReason.INVALID_REQUEST;
  }

  /** Stops a source for good (incompatible deployment or request): drops its state, never reconnects. */
  private void stopSource(Source source) {
    if (source.stopped) {
      return;
    }
    source.stopped = true;
    increment(sourcesStopped);
    source.dropState();
    reconcile();
  }

  /** Drops all of a source's state (a new connection epoch) and reconnects after backoff (§7.2, §7.6). */
  private void resetSource(Source source) {
    if (source.stopped || closed) {
      return;
    }
    source.dropState();
    reconcile();
    increment(reconnects);
    source.catalogWatch.reopenLater();
  }

  /**
   * Brings the sessions and the global view in line with the sources' catalogs: the wanted pools are the
   * domain's pools of every running source (a pool listed by two sources is refused for the later one).
   */
  private void reconcile() {
    Map<KvPoolId, Source> wantedSource = new LinkedHashMap<>();
    Map<KvPoolId, KvPoolDescriptor> wanted = new LinkedHashMap<>();
    Set<List<Object>> refusedNow = new HashSet<>();
    if (!closed) {
      for (Source source : sources) {
        if (source.stopped) {
          continue;
        }
        for (KvPoolDescriptor d : new TreeMap<>(source.catalog.pools()).values()) {
          KvPoolId pool = d.poolId();
          if (!pool.indexerDomain().equals(view.domain())) {
            continue;
          }
          if (wanted.containsKey(pool)) {
            refusedNow.add(List.of(source.name, pool, d.producer(), GlobalViewRefusal.DUPLICATE_DC));
            continue;
          }
          wanted.put(pool, d);
          wantedSource.put(pool, source);
        }
      }
    }
    long generation = view.generation();
    for (Session s : new ArrayList<>(sessions.values())) {
      KvPoolDescriptor d = wanted.get(s.pool);
      if (d == null || wantedSource.get(s.pool) != s.source || !d.producer().equals(s.producer)) {
        s.dropped = true;
        s.detach();
        sessions.remove(s.pool);
        view.remove(s.pool);
      }
    }
    for (Map.Entry<KvPoolId, KvPoolDescriptor> e : wanted.entrySet()) {
      KvPoolDescriptor d = e.getValue();
      Session s = sessions.get(e.getKey());
      if (s != null) {
        if (!d.equals(s.descriptor)) {
          // same producer, new metadata: UPDATED keeps the lane; a refusal (e.g. other query semantics) drops it
          GlobalViewAssignment updated = view.assign(d);
          if (updated.accepted()) {
            s.descriptor = d;
          } else {
            s.dropped = true;
            s.detach();
            sessions.remove(s.pool);
            view.remove(s.pool);
            refusedNow.add(List.of(s.source.name, s.pool, d.producer(), Objects.requireNonNull(updated.refusal())));
          }
        }
        continue;
      }
      GlobalViewAssignment a = view.assign(d);
      if (a.accepted()) {
        sessions.put(e.getKey(), new Session(Objects.requireNonNull(wantedSource.get(e.getKey())), d));
      } else {
        refusedNow.add(List.of(wantedSource.get(e.getKey()).name, e.getKey(), d.producer(),
            Objects.requireNonNull(a.refusal())));
      }
    }
    for (List<Object> key : refusedNow) {
      if (!refusedKeys.contains(key)) {
        increment(refusedLanes);
      }
    }
    refusedKeys = refusedNow;
    if (view.generation() != generation) {
      rebindAll();
    }
    publishStates();
  }

  /** A new generation: every replica claims its lane of the new indexer and resubscribes. */
  private void rebindAll() {
    for (Session s : sessions.values()) {
      s.detach();
      s.replica = null;
      s.lane = view.laneOf(s.pool);
      GlobalCkfLaneIngestor<KvPoolId> ingestor;
      try {
        ingestor = view.claimLane(s.pool);
      } catch (GlobalCkfBuildException e) {
        ingestor = null;
      }
      if (ingestor == null) {
        increment(refusedLanes); // unreachable: a fresh indexer has every lane unclaimed
        continue;
      }
      s.replica = new PoolReplica(ingestor, maxAgeUs);
      s.subscribe();
    }
  }

  private void publishStates() {
    List<ReplicaStatus> list = new ArrayList<>(sessions.size());
    for (Session s : sessions.values()) {
      PoolReplica r = s.replica;
      list.add(new ReplicaStatus(s.source.name, s.pool, s.producer, s.lane,
          r == null ? ReplicaState.UNBOUND : r.state(), r == null ? null : r.termination(), s.stream != null));
    }
    replicaStates = List.copyOf(list);
  }

  // ================================================================ one source

  /** Not thread-safe: confined to the consumer task, except the published snapshots (volatile, any thread). */
  private final class Source {
    final String name;
    final RelaySource relay;
    final CatalogView catalog = new CatalogView();
    final ReadinessView readinessView = new ReadinessView();
    final LoadView loadView = new LoadView();
    final CatalogWatch catalogWatch;
    final ReadinessWatch readinessWatch;
    final LoadWatch loadWatch;
    boolean stopped;
    volatile ReadinessSnapshot readiness = ReadinessSnapshot.EMPTY;
    volatile LoadSnapshot load = LoadSnapshot.EMPTY;

    Source(String name, RelaySource relay) {
      this.name = name;
      this.relay = relay;
      this.catalogWatch = new CatalogWatch(this);
      this.readinessWatch = new ReadinessWatch(this);
      this.loadWatch = new LoadWatch(this);
    }

    /** Closes the source's watches and drops its catalog, readiness and load state. */
    void dropState() {
      catalogWatch.close();
      readinessWatch.close();
      loadWatch.close();
      catalog.reset();
      readinessView.reset();
      loadView.reset();
      readiness = readinessView.snapshot();
      load = loadView.snapshot();
    }
  }

  /** Not thread-safe: confined to the consumer task, except the availability callback (any thread). */
  private abstract class Watch<T> {
    final Source source;
    final String subscriberId;
    private @Nullable RelayStream<T> stream;
    private volatile long token;
    private int failures;
    private final AtomicBoolean drainQueued = new AtomicBoolean();
    private final Runnable drainTask = this::drain;

    Watch(Source source, String suffix) {
      this.source = source;
      this.subscriberId = subscriberBase + suffix;
    }

    abstract RelayStream<T> openStream(String id) throws RelayException;

    /** Handles one message; false when the handler closed the stream (stop draining). */
    abstract boolean onMessage(T message);

    /** The stream ended: {@code reason} null for a clean end. */
    abstract void onEnd(@Nullable RelayErrorReason reason);

    void open() {
      close();
      if (closed || source.stopped) {
        return;
      }
      long t = token;
      RelayStream<T> s;
      try {
        s = openStream(subscriberId);
      } catch (RelayException e) {
        onEnd(e.reason());
        return;
      }
      stream = s;
      s.onAvailable(() -> {
        if (token == t && drainQueued.compareAndSet(false, true)) {
          scheduler.execute(drainTask);
        }
      });
    }

    boolean isOpen() {
      return stream != null;
    }

    void close() {
      token++;
      RelayStream<T> s = stream;
      stream = null;
      if (s != null) {
        s.close();
      }
    }

    void succeeded() {
      failures = 0;
    }

    void reopenLater() {
      close();
      long t = token;
      failures++;
      scheduler.schedule(() -> {
        if (token != t || closed || source.stopped) {
          increment(staleCallbacks);
          return;
        }
        open();
      }, backoff.delay(failures, random));
    }

    private void drain() {
      drainQueued.set(false);
      for (int i = 0; i < DRAIN_BUDGET; i++) {
        RelayStream<T> s = stream;
        if (s == null || closed) {
          return;
        }
        T m;
        try {
          m = s.poll();
        } catch (RelayException e) {
          close();
          onEnd(e.reason());
          return;
        }
        if (m == null) {
          if (s.isFinished()) {
            close();
            onEnd(null);
          }
          return;
        }
        if (!onMessage(m)) {
          return;
        }
      }
      if (drainQueued.compareAndSet(false, true)) {
        scheduler.execute(drainTask);
      }
    }
  }

  /** Not thread-safe: confined to the consumer task (see {@link Watch}). The catalog stream; opening it opens the others. */
  private final class CatalogWatch extends Watch<CatalogUpdate> {
    CatalogWatch(Source source) {
      super(source, CATALOG_SUFFIX);
    }

    @Override
    RelayStream<CatalogUpdate> openStream(String id) throws RelayException {
      return source.relay.watchCatalog(id);
    }

    @Override
    void open() {
      super.open();
      if (isOpen()) {
        source.readinessWatch.open();
        source.loadWatch.open();
      }
    }

    @Override
    boolean onMessage(CatalogUpdate update) {
      CatalogResult result = source.catalog.apply(update, epochMicros.getAsLong());
      if (result instanceof CatalogResult.Applied applied) {
        succeeded();
        for (PoolChange c : applied.changes()) {
          if (c.kind() == PoolChange.Kind.QUARANTINED) {
            increment(quarantinedDescriptors);
          }
        }
        reconcile();
        source.load = source.loadView.rejoin(source.catalog);
        return true;
      }
      if (result instanceof CatalogResult.Heartbeat) {
        succeeded();
        return true;
      }
      CatalogError error = ((CatalogResult.Rejected) result).error();
      increment(catalogRejections, error.ordinal());
      if (error == CatalogError.CONTRACT_MISMATCH || error == CatalogError.PROTOCOL_VERSION_MISMATCH) {
        stopSource(source);
      } else {
        resetSource(source);
      }
      return false;
    }

    @Override
    void onEnd(@Nullable RelayErrorReason reason) {
      if (reason != null && fatal(reason)) {
        stopSource(source);
      } else {
        resetSource(source);
      }
    }
  }

  /**
   * Not thread-safe: confined to the consumer task (see {@link Watch}). A stream that feeds one view (readiness or
   * load): an order error or a non-fatal end resets only that view and reopens the stream after backoff; CKF state is
   * never touched (wan-grpc.md §7.5).
   */
  private abstract class ViewWatch<T> extends Watch<T> {
    ViewWatch(Source source, String suffix) {
      super(source, suffix);
    }

    /** Applies one message to the view and publishes the view's snapshot. */
    abstract void apply(T message) throws StreamOrderException;

    /** Resets the view and publishes its empty snapshot. */
    abstract void resetView();

    @Override
    final boolean onMessage(T message) {
      try {
        apply(message);
        succeeded();
        return true;
      } catch (StreamOrderException e) {
        fail();
        return false;
      }
    }

    @Override
    final void onEnd(@Nullable RelayErrorReason reason) {
      if (reason != null && fatal(reason)) {
        stopSource(source);
      } else {
        fail();
      }
    }

    private void fail() {
      increment(watchErrors);
      resetView();
      reopenLater();
    }
  }

  /** Not thread-safe: confined to the consumer task (see {@link Watch}). The readiness stream. */
  private final class ReadinessWatch extends ViewWatch<ReadinessUpdate> {
    ReadinessWatch(Source source) {
      super(source, READINESS_SUFFIX);
    }

    @Override
    RelayStream<ReadinessUpdate> openStream(String id) throws RelayException {
      return source.relay.watchReadinessUpdates(id);
    }

    @Override
    void apply(ReadinessUpdate update) throws StreamOrderException {
      source.readinessView.apply(update, epochMicros.getAsLong());
      source.readiness = source.readinessView.snapshot();
    }

    @Override
    void resetView() {
      source.readinessView.reset();
      source.readiness = source.readinessView.snapshot();
    }
  }

  /** Not thread-safe: confined to the consumer task (see {@link Watch}). The pool-load stream. */
  private final class LoadWatch extends ViewWatch<KvPoolLoadUpdate> {
    LoadWatch(Source source) {
      super(source, LOAD_SUFFIX);
    }

    @Override
    RelayStream<KvPoolLoadUpdate> openStream(String id) throws RelayException {
      return source.relay.watchPoolLoad(id);
    }

    @Override
    void apply(KvPoolLoadUpdate window) throws StreamOrderException {
      source.load = source.loadView.apply(window, source.catalog, epochMicros.getAsLong());
    }

    @Override
    void resetView() {
      source.loadView.reset();
      source.load = source.loadView.snapshot();
    }
  }

  // ================================================================ one pool

  /** Not thread-safe: confined to the consumer task, except the availability callback (any thread). */
  private final class Session {
    final Source source;
    final KvPoolId pool;
    final ProducerIdentity producer;
    KvPoolDescriptor descriptor;
    int lane = -1;
    @Nullable PoolReplica replica;
    @Nullable RelayStream<PoolFrame> stream;
    volatile long token;
    int failures;
    boolean dropped;
    private final AtomicBoolean drainQueued = new AtomicBoolean();
    private final Runnable drainTask = this::drain;

    Session(Source source, KvPoolDescriptor descriptor) {
      this.source = source;
      this.pool = descriptor.poolId();
      this.producer = descriptor.producer();
      this.descriptor = descriptor;
    }

    /** Closes the stream and fences every pending completion, callback and timer. */
    void detach() {
      token++;
      RelayStream<PoolFrame> s = stream;
      stream = null;
      if (s != null) {
        s.close();
      }
    }

    /** Binds the replica under a new lease and subscribes (§7.4 step 1). */
    void subscribe() {
      PoolReplica r = replica;
      if (r == null || dropped || closed) {
        return;
      }
      detach();
      LaneAssignmentResult bound =
          r.bind(producer, new LaneLease(consumerInstance, lane, ++leaseEpoch), source.catalog.relay(), monoUs());
      if (bound != LaneAssignmentResult.ASSIGNED) {
        increment(refusedLanes); // unreachable: leases only grow and the lane is ours
        return;
      }
      increment(subscriptions);
      long t = token;
      CompletableFuture<RelayStream<PoolFrame>> future;
      try {
        future = source.relay.subscribePool(pool, producer, subscriberBase + CKF_SUFFIX);
      } catch (RuntimeException e) {
        onStreamError(RelayErrorReason.INTERNAL);
        return;
      }
      future.whenComplete((s, err) -> scheduler.execute(() -> onSubscribed(t, s, err)));
    }

    private void onSubscribed(long t, @Nullable RelayStream<PoolFrame> s, @Nullable Throwable err) {
      if (t != token || dropped || closed) {
        increment(staleCallbacks);
        if (s != null) {
          s.close();
        }
        return;
      }
      if (err != null || s == null) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        onStreamError(cause instanceof RelayException re ? re.reason() : RelayErrorReason.INTERNAL);
        return;
      }
      stream = s;
      publishStates();
      s.onAvailable(() -> {
        if (token == t && drainQueued.compareAndSet(false, true)) {
          scheduler.execute(drainTask);
        }
      });
    }

    private void drain() {
      drainQueued.set(false);
      for (int i = 0; i < DRAIN_BUDGET; i++) {
        RelayStream<PoolFrame> s = stream;
        PoolReplica r = replica;
        if (s == null || r == null || dropped || closed) {
          return;
        }
        PoolFrame frame;
        try {
          frame = s.poll();
        } catch (RelayException e) {
          detach();
          onStreamError(e.reason());
          return;
        }
        if (frame == null) {
          if (s.isFinished()) {
            detach();
            PoolReplica.FrameResult res = r.endOfStream();
            onInvalidated(res.invalidated() && res.termination() != null
                ? res.termination() : ReplicaTermination.END_OF_STREAM);
          }
          return;
        }
        long now = monoUs();
        ReplicaState before = r.state();
        PoolReplica.FrameResult res = r.apply(frame, now);
        if (res.invalidated()) {
          detach();
          onInvalidated(Objects.requireNonNull(res.termination()));
          return;
        }
        if (res.outcome() == PoolReplica.Outcome.REFUSED) {
          increment(staleCallbacks); // unreachable while the stream is ours: the replica is bound
          return;
        }
        increment(framesApplied);
        view.recordActivity(pool, now);
        if (res.outcome() == PoolReplica.Outcome.SNAPSHOT_INSTALLED) {
          failures = 0;
        }
        if (r.state() != before) {
          publishStates();
        }
      }
      if (drainQueued.compareAndSet(false, true)) {
        scheduler.execute(drainTask);
      }
    }

    /** The replica invalidated itself (§7.4 step 6): act on the termination's action. */
    void onInvalidated(ReplicaTermination termination) {
      increment(invalidations, termination.ordinal());
      switch (termination.action()) {
        case STOP -> stopSource(source);
        case RECONNECT -> resetSource(source);
        case RESUBSCRIBE -> resubscribeLater();
      }
    }

    /** The subscription was refused or the stream ended with a relay error. */
    private void onStreamError(RelayErrorReason reason) {
      increment(poolStreamErrors, reason.ordinal());
      PoolReplica r = replica;
      if (r != null) {
        r.endOfStream(); // retires the lane; counted as a stream error, not as an invalidation
      }
      if (fatal(reason)) {
        stopSource(source);
      } else {
        resubscribeLater();
      }
    }

    private void resubscribeLater() {
      detach();
      failures++;
      long t = token;
      scheduler.schedule(() -> {
        if (t != token || dropped || closed) {
          increment(staleCallbacks);
          return;
        }
        increment(resubscriptions);
        subscribe();
      }, backoff.delay(failures, random));
      publishStates();
    }
  }

  // ================================================================ builder

  /** Not thread-safe: confined to the building thread. Each setter may be called once; {@link #build()} checks. */
  public static final class Builder {
    private @Nullable Long consumerInstanceSet;
    private long consumerInstance;
    private @Nullable IndexerDomainId domain;
    private @Nullable CkfFormat format;
    private @Nullable KvQuerySemantics semantics;
    private long maxAgeUs;
    private boolean maxAgeSet;
    private @Nullable String subscriberIdBase;
    private @Nullable ActorScheduler scheduler;
    private @Nullable ScheduledExecutorService executor;
    private @Nullable LongSupplier nanoTime;
    private @Nullable LongSupplier epochMicros;
    private @Nullable BackoffPolicy backoff;
    private @Nullable Long randomSeed;
    private final Map<String, RelaySource> sources = new LinkedHashMap<>();

    private Builder() {}

    private static void once(boolean alreadySet, String what) {
      if (alreadySet) {
        throw new IllegalStateException(what + " is already set");
      }
    }

    /** The consumer instance id the lane leases carry (unsigned 64-bit). */
    public Builder consumerInstance(long id) {
      once(consumerInstanceSet != null, "consumerInstance");
      consumerInstanceSet = id;
      consumerInstance = id;
      return this;
    }

    /** The one indexer domain this consumer reads. */
    public Builder domain(IndexerDomainId domain) {
      once(this.domain != null, "domain");
      this.domain = Objects.requireNonNull(domain, "domain");
      return this;
    }

    /** The one CKF format of the domain's pools. */
    public Builder format(CkfFormat format) {
      once(this.format != null, "format");
      this.format = Objects.requireNonNull(format, "format");
      return this;
    }

    /** The domain's query semantics. */
    public Builder semantics(KvQuerySemantics semantics) {
      once(this.semantics != null, "semantics");
      this.semantics = Objects.requireNonNull(semantics, "semantics");
      return this;
    }

    /** The replica max-age in µs (choose ≥ 2–3 × the pool heartbeat interval), &gt; 0. */
    public Builder maxAgeUs(long maxAgeUs) {
      once(maxAgeSet, "maxAgeUs");
      maxAgeSet = true;
      this.maxAgeUs = maxAgeUs;
      return this;
    }

    /** The subscriber id base (≤ 118 UTF-8 bytes); the streams use it with "/catalog", "/ckf", "/readiness", "/load". */
    public Builder subscriberIdBase(String base) {
      once(subscriberIdBase != null, "subscriberIdBase");
      this.subscriberIdBase = Objects.requireNonNull(base, "base");
      return this;
    }

    /**
     * The executor the consumer's one serial task runs on (optional). The caller owns it: {@link #close()} does
     * not shut it down. Without one, the consumer runs on one daemon thread of its own and stops it on close.
     */
    public Builder executor(ScheduledExecutorService executor) {
      once(this.executor != null || this.scheduler != null, "executor");
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** The scheduler whose serial task owns all consumer state (tests: a manual, deterministic one). */
    Builder scheduler(ActorScheduler scheduler) {
      once(this.scheduler != null || this.executor != null, "scheduler");
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** The clocks: a monotonic {@code nanoTime} and the wall clock in µs since the epoch. Both thread-safe. */
    public Builder clocks(LongSupplier nanoTime, LongSupplier epochMicros) {
      once(this.nanoTime != null, "clocks");
      this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
      this.epochMicros = Objects.requireNonNull(epochMicros, "epochMicros");
      return this;
    }

    /** The backoff policy (default {@link BackoffPolicy#DEFAULT}). */
    public Builder backoff(BackoffPolicy policy) {
      once(backoff != null, "backoff");
      this.backoff = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The seed of the jitter (default: from the clock); tests fix it. */
    public Builder randomSeed(long seed) {
      once(randomSeed != null, "randomSeed");
      this.randomSeed = seed;
      return this;
    }

    /** Adds one relay (one DC) under a unique non-empty name; at most {@value RelayConsumer#MAX_SOURCES}. */
    public Builder source(String name, RelaySource source) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(source, "source");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("source name must not be empty");
      }
      once(sources.containsKey(name), "source " + name);
      sources.put(name, source);
      return this;
    }

    /**
     * Checks every field and their combination and builds the (not yet started) consumer.
     *
     * @throws IllegalStateException naming every missing or invalid setting
     */
    public RelayConsumer build() {
      List<String> problems = new ArrayList<>();
      if (consumerInstanceSet == null) {
        problems.add("consumerInstance missing");
      }
      if (domain == null) {
        problems.add("domain missing");
      }
      if (format == null) {
        problems.add("format missing");
      }
      if (semantics == null) {
        problems.add("semantics missing");
      }
      if (!maxAgeSet) {
        problems.add("maxAgeUs missing");
      } else if (maxAgeUs <= 0 || maxAgeUs > Long.MAX_VALUE / 1_000L) {
        problems.add("maxAgeUs must be in 1.." + Long.MAX_VALUE / 1_000L + ", got " + maxAgeUs);
      }
      if (subscriberIdBase == null) {
        problems.add("subscriberIdBase missing");
      } else {
        String base = subscriberIdBase;
        try {
          SubscriberId.check(base); // the wire rules of every subscriber_id (non-empty, no control character)
        } catch (RelayException e) {
          problems.add("subscriberIdBase: " + e.getMessage());
        }
        if (!StandardCharsets.UTF_8.newEncoder().canEncode(base)) {
          problems.add("subscriberIdBase is not well-formed UTF-16");
        } else if (base.getBytes(StandardCharsets.UTF_8).length > MAX_SUBSCRIBER_BASE_BYTES) {
          // room for the longest suffix ("/readiness") within the 128-byte subscriber_id limit
          problems.add("subscriberIdBase exceeds " + MAX_SUBSCRIBER_BASE_BYTES + " UTF-8 bytes");
        }
      }
      if (nanoTime == null) {
        problems.add("clocks missing");
      }
      if (sources.isEmpty()) {
        problems.add("at least one source is required");
      } else if (sources.size() > MAX_SOURCES) {
        problems.add("at most " + MAX_SOURCES + " sources, got " + sources.size());
      }
      if (!problems.isEmpty()) {
        throw new IllegalStateException("invalid RelayConsumer settings: " + String.join("; ", problems));
      }
      return new RelayConsumer(this);
    }
  }

  @Override
  public String toString() {
    return "RelayConsumer[sources=" + Arrays.toString(byName.keySet().toArray()) + ", " + view + "]";
  }
}
