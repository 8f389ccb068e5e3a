package dev.kvrelay.engine;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.FaultDisposition;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SourceFault;
import dev.kvrelay.engine.catalog.PoolCatalog;
import dev.kvrelay.engine.hub.HubSlot;
import dev.kvrelay.engine.hub.HubSource;
import dev.kvrelay.engine.load.LoadWindowException;
import dev.kvrelay.engine.load.LoadWindows;
import dev.kvrelay.engine.load.PoolLoadAggregator;
import dev.kvrelay.engine.load.PoolLoadReport;
import dev.kvrelay.engine.load.PoolLoadSettings;
import dev.kvrelay.engine.membership.EndpointMembership;
import dev.kvrelay.engine.membership.KvSourceAdvertisements;
import dev.kvrelay.engine.membership.KvSourceKey;
import dev.kvrelay.engine.membership.KvSourceStatus;
import dev.kvrelay.engine.membership.KvSourceView;
import dev.kvrelay.engine.membership.MaterializationDecision;
import dev.kvrelay.engine.membership.MembershipProjector;
import dev.kvrelay.engine.membership.MembershipView;
import dev.kvrelay.engine.recovery.PoolRecovery;
import dev.kvrelay.engine.recovery.SourceBinding;
import dev.kvrelay.engine.stats.EventPlaneFaultKind;
import dev.kvrelay.engine.topology.EndpointTopology;
import dev.kvrelay.engine.topology.PoolLink;
import dev.kvrelay.engine.topology.TopologyPublisher;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.CatalogUpdate;
import dev.kvrelay.engine.wan.DescriptorException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadUpdate;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.TransportAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confined to the engine's control task: every method runs on the single control thread. It holds what
 * discovery says, projects memberships, runs one slot per serving endpoint (producer.md §2.6) that starts,
 * updates and retires pool generations (§2.7), and publishes the catalog, the readiness topology and the load
 * windows.
 */
final class RelayHost {
  static final Logger LOG = LoggerFactory.getLogger(RelayHost.class);
  /** Component name of ZMQ broker EventChannels (runtime-inputs §5.1; the broker registers topic {@code broker}). */
  static final String ZMQ_BROKER_COMPONENT = "zmq_broker";

  /** Start-failure retry: 100 ms doubling, capped at 5 s (producer.md §2.6). */
  static final long RETRY_INITIAL_MS = 100;
  static final long RETRY_MAX_MS = 5_000;

  private final RelayEngine engine;
  private final RelayEngineConfig config;
  private final Map<DiscoveryKey, DiscoveryRecord> known = new HashMap<>();
  private final MembershipProjector projector;
  private KvSourceAdvertisements adverts = new KvSourceAdvertisements();
  private final TreeMap<DynamoEndpointId, Slot> slots = new TreeMap<>();
  private final PoolCatalog catalog;
  private final TopologyPublisher topology = new TopologyPublisher();
  private final LoadWindows loadWindows;
  private final dev.kvrelay.engine.load.ServingLoadWindows servingLoadWindows;
  private final PoolLoadSettings loadSettings = PoolLoadSettings.DEFAULT;
  private long nextSlotIncarnation = 1;
  private long nextLayoutGeneration = 1;
  private long lastPublishedCatalogRevision = -1;
  private long lastPublishedTopologyRevision = -1;
  private boolean stopped;
  /** Set when the load publisher failed: the ticker is stopped for good (wan-grpc.md §4.1, C33). */
  private boolean loadStopped;

  // counters (written on the control thread, read by stats())
  final LongAdder discoveryErrors = new LongAdder();
  final LongAdder discoveryDecodeErrors = new LongAdder();
  final LongAdder reconciles = new LongAdder();
  final LongAdder poolStarts = new LongAdder();
  final LongAdder poolStartFailures = new LongAdder();
  final LongAdder gracefulRetirements = new LongAdder();
  final LongAdder fencedRetirements = new LongAdder();
  final LongAdder sourceFaults = new LongAdder();
  final LongAdder rejectedSources = new LongAdder();
  final LongAdder hubFaults = new LongAdder();
  final LongAdder eventDecodeErrors = new LongAdder();
  final LongAdder loadObservations = new LongAdder();
  final LongAdder loadRejected = new LongAdder();
  final LongAdder unexpectedMessages = new LongAdder();
  final LongAdder channelErrors = new LongAdder();
  final LongAdder faultQueueOverflows = new LongAdder();
  /** Load publisher errors: the fatal one, or one swallowed because the engine was already closing. */
  final LongAdder loadPublishErrors = new LongAdder();
  /** Event-plane faults of every subscription (kv-events and kv_metrics), by kind; written on delivery threads. */
  final java.util.EnumMap<EventPlaneFaultKind, LongAdder> planeFaults = newFaultCounters();
  /** True between a plane Disconnected and the next Reconnected: connection loss and return are logged once. */
  private final java.util.concurrent.atomic.AtomicBoolean planeDisconnected =
      new java.util.concurrent.atomic.AtomicBoolean();
  /** Channels the plane refused as unsupported (a broker channel in direct mode): counted and logged once. */
  private final Set<dev.kvrelay.spi.eventplane.ChannelLocator> unsupportedChannels = new HashSet<>();

  /** Confined to the control task: one serving endpoint's slot, its incarnation (claims topology availability) and its pool. */
  private static final class Slot {
    final long incarnation;
    @Nullable PoolRuntime runtime;
    boolean claimed;
    long retryDelayMs;
    /** True while a start failure's backoff runs; then {@link #retryAtNanos} is meaningful. */
    boolean backingOff;
    long retryAtNanos;
    MaterializationDecision.@Nullable Materialize failedBinding;

    Slot(long incarnation) {
      this.incarnation = incarnation;
    }
  }

  RelayHost(RelayEngine engine, long nowMs) throws LoadWindowException {
    this.engine = engine;
    this.config = engine.config();
    this.projector = new MembershipProjector(config.dcId(), config.scope());
    this.catalog = new PoolCatalog(engine.identity());
    this.loadWindows = new LoadWindows(config.value(RelayConfigKey.LOAD_WINDOW_MS));
    loadWindows.initial(nowMs, List.of());
    this.servingLoadWindows = new dev.kvrelay.engine.load.ServingLoadWindows(config.value(RelayConfigKey.LOAD_WINDOW_MS));
    servingLoadWindows.initial(nowMs);
  }

  dev.kvrelay.engine.wan.ServingLoadUpdate initialServingLoadWindow() {
    return servingLoadWindows.current().orElseThrow();
  }

  KvPoolLoadUpdate initialLoadWindow() {
    return loadWindows.current().orElseThrow();
  }

  CatalogSnapshot catalogSnapshot() {
    return catalog.snapshot();
  }

  TopologySnapshot topologySnapshot() {
    return topology.snapshot();
  }

  int activePools() {
    int n = 0;
    for (Slot s : slots.values()) {
      if (s.runtime != null) {
        n++;
      }
    }
    return n;
  }

  List<PoolRuntime> runtimes() {
    List<PoolRuntime> out = new ArrayList<>();
    for (Slot s : slots.values()) {
      if (s.runtime != null) {
        out.add(s.runtime);
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ discovery callbacks

  void onSnapshot(List<DiscoveryRecord> records) {
    known.clear();
    for (DiscoveryRecord r : records) {
      known.put(key(r), r);
    }
    rebuildAdvertisements();
    reconcile();
  }

  void onUpserted(DiscoveryRecord record) {
    known.put(key(record), record);
    if (record instanceof EventSourceRecord es) {
      adverts.advertise(es);
    }
    reconcile();
  }

  void onRemoved(DiscoveryKey key) {
    if (known.remove(key) == null) {
      return;
    }
    if (key instanceof EventSourceKey esk) {
      adverts.withdraw(esk);
    }
    reconcile();
  }

  void onModelTaintsUpdated(ModelKey key, List<String> taints) {
    DiscoveryRecord r = known.get(key);
    if (r instanceof ModelRecord m) {
      known.put(key, m.withTaints(taints));
      reconcile();
    } else {
      LOG.warn("taints update for an unknown model card {}; ignored", key);
    }
  }

  void onResync(List<DiscoveryRecord> records) {
    DiscoveryDiff diff = DiscoveryDiff.between(known, records);
    for (DiscoveryKey k : diff.removed()) {
      known.remove(k);
    }
    for (DiscoveryRecord r : diff.upserted()) {
      known.put(key(r), r);
    }
    rebuildAdvertisements();
    reconcile();
  }

  void onError(DiscoveryException error) {
    if (error instanceof DiscoveryDecodeException) {
      discoveryDecodeErrors.increment();
    } else {
      discoveryErrors.increment();
    }
    LOG.warn("discovery: {}", error.getMessage());
  }

  private static DiscoveryKey key(DiscoveryRecord r) {
    if (r instanceof ModelRecord m) {
      return m.key();
    } else if (r instanceof EndpointRecord e) {
      return e.key();
    } else if (r instanceof EventSourceRecord s) {
      return s.key();
    }
    return ((dev.kvrelay.spi.discovery.EventChannelRecord) r).key();
  }

  private void rebuildAdvertisements() {
    adverts = new KvSourceAdvertisements();
    List<EventSourceRecord> sources = new ArrayList<>();
    for (DiscoveryRecord r : known.values()) {
      if (r instanceof EventSourceRecord es) {
        sources.add(es);
      }
    }
    sources.sort((a, b) -> DiscoveryKey.ORDER.compare(a.key(), b.key()));
    for (EventSourceRecord es : sources) {
      adverts.advertise(es);
    }
  }

  // ------------------------------------------------------------------ reconcile

  /** Re-projects everything discovery says and moves every slot towards it. */
  void reconcile() {
    if (stopped) {
      return;
    }
    reconciles.increment();
    List<ModelRecord> models = new ArrayList<>();
    Map<DynamoEndpointId, Set<Long>> live = new HashMap<>();
    for (DiscoveryRecord r : known.values()) {
      if (r instanceof ModelRecord m) {
        models.add(m);
      } else if (r instanceof EndpointRecord e) {
        live.computeIfAbsent(e.endpoint(), k -> new HashSet<>()).add(e.instanceId());
      }
    }
    MembershipView view = projector.project(models);
    TreeSet<DynamoEndpointId> endpoints = new TreeSet<>(slots.keySet());
    endpoints.addAll(view.endpoints().keySet());
    for (DynamoEndpointId endpoint : endpoints) {
      EndpointMembership m = view.endpoints().get(endpoint);
      Slot slot = slots.get(endpoint);
      if (m == null) {
        if (slot != null) {
          if (slot.runtime != null) {
            retire(slot, false);
          }
          topology.removeEndpoint(endpoint);
          slots.remove(endpoint);
        }
        continue;
      }
      if (slot == null) {
        slot = new Slot(nextSlotIncarnation++);
        slots.put(endpoint, slot);
      }
      reconcileTopology(slot, m, live.getOrDefault(endpoint, Set.of()));
      reconcilePool(slot, m);
    }
    topology.replacePoolLinks(poolLinks());
    publish();
  }

  private void reconcileTopology(Slot slot, EndpointMembership m, Set<Long> live) {
    Optional<EndpointTopology> t = EndpointTopology.from(m);
    if (t.isEmpty()) {
      if (slot.claimed) {
        topology.removeEndpoint(m.endpoint());
        slot.claimed = false;
      }
      return;
    }
    topology.putMembership(t.get());
    if (!slot.claimed) {
      topology.claim(m.endpoint(), slot.incarnation);
      slot.claimed = true;
    }
    topology.publishAvailability(m.endpoint(), slot.incarnation, Optional.of(live));
  }

  private void reconcilePool(Slot slot, EndpointMembership m) {
    KvSourceView sourceView = KvSourceView.of(m, adverts);
    MaterializationDecision decision = MaterializationDecision.decide(m, sourceView);
    MaterializationDecision.Materialize desired =
        decision instanceof MaterializationDecision.Materialize mat ? mat : null;
    PoolRuntime runtime = slot.runtime;
    if (runtime != null) {
      if (desired == null || !desired.equals(runtime.binding) || runtime.fenceReason != null) {
        boolean fenced = runtime.fenceReason != null || m.hasPoolBlockingConflict();
        retire(slot, fenced);
        runtime = null;
      } else {
        update(runtime, m, sourceView);
      }
    }
    if (desired != null && !desired.equals(slot.failedBinding)) {
      slot.retryDelayMs = 0;
      slot.backingOff = false;
      slot.failedBinding = null;
    }
    if (runtime == null && desired != null && (!slot.backingOff || engine.nanoTime() - slot.retryAtNanos >= 0)) {
      start(slot, m, desired, sourceView);
    }
  }

  private void update(PoolRuntime runtime, EndpointMembership m, KvSourceView sourceView) {
    KvPoolDescriptor d = runtime.descriptor;
    try {
      KvPoolDescriptor next = d.withRegistrations(m.registrations()).withRoles(m.roles());
      if (!next.equals(d)) {
        catalog.upsert(next);
        runtime.descriptor = next;
      }
    } catch (DescriptorException e) {
      LOG.warn("pool {}: registration or role change refused ({}); fencing the generation", d.poolId(),
          e.getMessage());
      runtime.fenceReason = "descriptor update refused: " + e.getMessage();
    }
    if (!runtime.runtimeConfigs.equals(m.runtimeConfigs())) {
      runtime.runtimeConfigs = m.runtimeConfigs();
      runtime.load.refresh(m.runtimeConfigs());
    }
    runtime.updateSources(bindings(sourceView));
    syncChannels(runtime);
  }

  /**
   * On planes whose subscriptions must connect to each publisher (ZMQ direct mode), connects the pool's kv-events
   * and kv_metrics subscriptions to the channels discovery advertises for their scope and topic, and disconnects
   * the ones that disappeared. A channel the plane refuses is counted and logged; the others are unaffected.
   */
  private void syncChannels(PoolRuntime runtime) {
    if (!engine.eventPlane().connectsToChannels()) {
      return;
    }
    Set<dev.kvrelay.spi.eventplane.ChannelLocator> events = new HashSet<>();
    Set<dev.kvrelay.spi.eventplane.ChannelLocator> metrics = new HashSet<>();
    dev.kvrelay.api.EventScope metricsScope =
        new dev.kvrelay.api.EventScope.Endpoint(runtime.descriptor.servingEndpoint());
    for (DiscoveryRecord r : known.values()) {
      if (r instanceof dev.kvrelay.spi.discovery.EventChannelRecord ch) {
        if (isBroker(ch)) {
          // Broker mode (DYN_ZMQ_BROKER_ENABLED): every subscription of the broker's namespace reads through it.
          if (ch.key().scope().namespace().equals(runtime.kvEventsScope().namespace())) {
            events.add(locator(ch));
          }
          if (ch.key().scope().namespace().equals(metricsScope.namespace())) {
            metrics.add(locator(ch));
          }
        } else if (ch.key().scope().equals(runtime.kvEventsScope())
            && EventTopics.KV_EVENTS.equals(ch.key().topic())) {
          events.add(locator(ch));
        } else if (ch.key().scope().equals(metricsScope) && EventTopics.KV_METRICS.equals(ch.key().topic())) {
          metrics.add(locator(ch));
        }
      }
    }
    events.removeAll(unsupportedChannels);
    metrics.removeAll(unsupportedChannels);
    connect(runtime.kvEvents, runtime.kvEventChannels, events);
    connect(runtime.kvMetrics, runtime.kvMetricChannels, metrics);
  }

  /**
   * A ZMQ broker's EventChannel (runtime-inputs §5.1, plugins-wire: brokers are EventChannels of component {@code
   * zmq_broker} in the namespace, any topic; upstream's broker registers topic {@code broker}) with a {@code
   * ZmqBroker} transport.
   */
  static boolean isBroker(dev.kvrelay.spi.discovery.EventChannelRecord ch) {
    return ch.transport() instanceof dev.kvrelay.spi.discovery.ChannelTransport.ZmqBroker
        && ch.key().scope() instanceof dev.kvrelay.api.EventScope.Component c
        && ZMQ_BROKER_COMPONENT.equals(c.component());
  }

  private void connect(dev.kvrelay.spi.eventplane.@Nullable EventSubscription subscription,
      Set<dev.kvrelay.spi.eventplane.ChannelLocator> connected, Set<dev.kvrelay.spi.eventplane.ChannelLocator> desired) {
    if (subscription == null) {
      return;
    }
    for (java.util.Iterator<dev.kvrelay.spi.eventplane.ChannelLocator> it = connected.iterator(); it.hasNext(); ) {
      dev.kvrelay.spi.eventplane.ChannelLocator c = it.next();
      if (!desired.contains(c)) {
        subscription.disconnect(c);
        it.remove();
      }
    }
    for (dev.kvrelay.spi.eventplane.ChannelLocator c : desired) {
      if (!connected.contains(c)) {
        try {
          subscription.connect(c);
          connected.add(c);
        } catch (EventPlaneException e) {
          channelErrors.increment();
          if (e.kind() == EventPlaneException.Kind.UNSUPPORTED_CHANNEL) {
            // Not retried on later reconciles (the plane's mode does not change): one count, one line.
            unsupportedChannels.add(c);
          }
          LOG.warn("event channel {} refused: {}", c, e.getMessage());
        }
      }
    }
  }

  /** The event-plane locator of a discovery EventChannel. */
  static dev.kvrelay.spi.eventplane.ChannelLocator locator(dev.kvrelay.spi.discovery.EventChannelRecord ch) {
    dev.kvrelay.spi.discovery.ChannelTransport t = ch.transport();
    if (t instanceof dev.kvrelay.spi.discovery.ChannelTransport.Zmq z) {
      return new dev.kvrelay.spi.eventplane.ChannelLocator.Zmq(ch.key().instanceId(), z.endpoint());
    } else if (t instanceof dev.kvrelay.spi.discovery.ChannelTransport.ZmqBroker b) {
      return new dev.kvrelay.spi.eventplane.ChannelLocator.ZmqBroker(b.xsubEndpoints(), b.xpubEndpoints());
    }
    return new dev.kvrelay.spi.eventplane.ChannelLocator.Nats(
        ((dev.kvrelay.spi.discovery.ChannelTransport.Nats) t).subjectPrefix());
  }

  /** The active sources of a view as recovery bindings, in key order. */
  private List<SourceBinding> bindings(KvSourceView view) {
    List<SourceBinding> out = new ArrayList<>();
    for (Map.Entry<KvSourceKey, KvSourceStatus> e : view.statuses().entrySet()) {
      KvSourceKey k = e.getKey();
      MemberId member = new MemberId(k.workerId(), (int) k.dpRank());
      if (e.getValue() instanceof KvSourceStatus.ActiveRecoverable r) {
        Optional<RecoveryTarget> target =
            adverts.sourceOf(k, r.publisherId()).map(KvEventSource::recoveryTarget).map(RelayHost::target);
        out.add(new SourceBinding(member, r.publisherId(), target));
      } else if (e.getValue() instanceof KvSourceStatus.ActiveLiveOnly l) {
        out.add(new SourceBinding(member, l.publisherId(), Optional.empty()));
      }
    }
    return out;
  }

  private static @Nullable RecoveryTarget target(@Nullable EndpointRecord record) {
    if (record == null) {
      return null;
    }
    Transport t = record.transport();
    TransportAddress.Kind kind = t instanceof Transport.Tcp ? TransportAddress.Kind.TCP
        : t instanceof Transport.NatsTcp ? TransportAddress.Kind.NATS_TCP : TransportAddress.Kind.HTTP;
    return new RecoveryTarget(record.endpoint(), record.instanceId(), new TransportAddress(kind, t.value()));
  }

  // ------------------------------------------------------------------ start and retire

  private void start(Slot slot, EndpointMembership m, MaterializationDecision.Materialize binding, KvSourceView view) {
    if (nextLayoutGeneration == 0) {
      startFailed(slot, binding, "layout generation space exhausted");
      return;
    }
    long generation = nextLayoutGeneration++;
    KvPoolId poolId = new KvPoolId(binding.domain().id(), config.dcId());
    ProducerIdentity producer =
        new ProducerIdentity(poolId, engine.identity().relayIncarnation(), generation, config.ckfFormat());
    KvPoolDescriptor descriptor;
    CkfProducer ckf;
    try {
      descriptor = KvPoolDescriptor.of(producer, m.endpoint(), m.registrations(),
          binding.domain().querySemantics(), m.roles());
      ckf = PoolRuntime.newProducer(config);
    } catch (DescriptorException | dev.kvrelay.ckf.CkfConfigException e) {
      startFailed(slot, binding, e.getMessage());
      return;
    }
    AtomicReference<@Nullable PoolActor> actorRef = new AtomicReference<>();
    AtomicReference<@Nullable PoolRuntime> runtimeRef = new AtomicReference<>();
    HubSource source = new HubSource() {
      @Override
      public CompletableFuture<dev.kvrelay.ckf.producer.BarrierSnapshot> subscribe(long lease) {
        CompletableFuture<dev.kvrelay.ckf.producer.BarrierSnapshot> reply = new CompletableFuture<>();
        PoolActor a = actorRef.get();
        if (a == null || !a.submit(new PoolCommand.Subscribe(lease, reply)).accepted()) {
          reply.completeExceptionally(new dev.kvrelay.api.RelayException(
              RelayErrorReason.PUBLICATION_UNAVAILABLE, "pool actor did not accept the subscription"));
        }
        return reply;
      }

      @Override
      public void retireLease(long lease) {
        PoolActor a = actorRef.get();
        if (a != null) {
          a.submit(new PoolCommand.RetireLease(lease));
        }
      }
    };
    HubSlot hub = engine.hubs().attach(poolId, producer, config.ckfFormat(), source);
    PoolActor actor = PoolActor.start(ckf, engine.actorConfig(), engine.actorScheduler(), hub,
        fault -> {
          sourceFaults.increment();
          PoolRuntime r = runtimeRef.get();
          if (r != null && r.faults.offer(fault)) {
            engine.control(() -> onSourceFaults(r));
          }
        });
    actorRef.set(actor);
    PoolRecovery recovery = new PoolRecovery(poolId, engine.recoverySettings(), PoolRuntime.sink(actor),
        engine.requestPlane(), engine.recoveryPermits(), engine.actorScheduler(), engine::nanoTime);
    PoolLoadAggregator load = new PoolLoadAggregator(loadSettings);
    PoolRuntime runtime = new PoolRuntime(slot.incarnation, binding, descriptor, actor, recovery, hub, load);
    runtimeRef.set(runtime);
    runtime.runtimeConfigs = m.runtimeConfigs();
    load.refresh(m.runtimeConfigs());
    try {
      runtime.kvEvents = engine.eventPlane().subscribe(runtime.kvEventsScope(), EventTopics.KV_EVENTS,
          new KvEventsListener(runtime));
      runtime.kvMetrics = engine.eventPlane().subscribe(
          new dev.kvrelay.api.EventScope.Endpoint(m.endpoint()), EventTopics.KV_METRICS, new LoadListener(runtime));
    } catch (EventPlaneException e) {
      hub.retire();
      runtime.teardown(true);
      startFailed(slot, binding, "event plane subscription failed: " + e.getMessage());
      return;
    }
    runtime.updateSources(bindings(view));
    syncChannels(runtime);
    catalog.upsert(descriptor);
    slot.runtime = runtime;
    slot.failedBinding = null;
    slot.retryDelayMs = 0;
    slot.backingOff = false;
    poolStarts.increment();
    LOG.info("pool {} started for {} (layout generation {})", poolId, m.endpoint(), Long.toUnsignedString(generation));
  }

  private void startFailed(Slot slot, MaterializationDecision.Materialize binding, @Nullable String why) {
    poolStartFailures.increment();
    slot.retryDelayMs = slot.retryDelayMs == 0 ? RETRY_INITIAL_MS : Math.min(RETRY_MAX_MS, slot.retryDelayMs * 2);
    slot.retryAtNanos = engine.nanoTime() + TimeUnit.MILLISECONDS.toNanos(slot.retryDelayMs);
    slot.backingOff = true;
    boolean first = slot.failedBinding == null;
    slot.failedBinding = binding;
    if (first) {
      LOG.error("pool start failed ({}); retrying in {} ms", why, slot.retryDelayMs);
    } else {
      LOG.debug("pool start failed ({}); retrying in {} ms", why, slot.retryDelayMs);
    }
    engine.controlAfter(slot.retryDelayMs, this::reconcile);
  }

  /**
   * Withdrawal in order (producer.md §2.7): the catalog removal is published first and the load entry goes
   * with it, the hub's streams end, then the actor is shut down (graceful) or fenced.
   */
  private void retire(Slot slot, boolean fenced) {
    PoolRuntime runtime = slot.runtime;
    if (runtime == null) {
      return;
    }
    slot.runtime = null;
    catalog.remove(runtime.poolId(), runtime.descriptor.layoutGeneration());
    topology.replacePoolLinks(poolLinks());
    publish();
    runtime.hub.retire();
    runtime.teardown(fenced);
    (fenced ? fencedRetirements : gracefulRetirements).increment();
    String generation = Long.toUnsignedString(runtime.descriptor.layoutGeneration());
    if (fenced) {
      LOG.warn("pool {} fenced: layout generation {} retired ({}); a new generation starts if the pool is still wanted",
          runtime.poolId(), generation, runtime.fenceReason == null ? "blocking membership conflict" : runtime.fenceReason);
    } else {
      LOG.info("pool {} stopped: layout generation {} retired gracefully", runtime.poolId(), generation);
    }
  }

  private List<PoolLink> poolLinks() {
    List<PoolLink> links = new ArrayList<>();
    for (KvPoolDescriptor d : catalog.snapshot().pools()) {
      Set<String> seen = new HashSet<>();
      for (ModelRegistration r : d.registrations()) {
        if (r.target() instanceof ModelTarget.Base b && seen.add(b.baseModel())) {
          links.add(new PoolLink(d.servingEndpoint(), b.baseModel(), d.poolId()));
        }
      }
    }
    return links;
  }

  // ------------------------------------------------------------------ faults

  /** Handles the faults queued by one pool's actor (producer.md §3.5 host queue). */
  void onSourceFaults(PoolRuntime runtime) {
    SourceFaultQueue.Taken pending = runtime.faults.take();
    if (runtime.retired) {
      return;
    }
    if (pending.fence() || pending.overflow()) {
      if (pending.overflow()) {
        faultQueueOverflows.increment();
      }
      runtime.fenceReason = pending.fence() ? "producer fault (fence and rebuild)"
          : "more than " + SourceFaultQueue.MAX_PENDING_SOURCE_FAULTS + " sources with pending faults";
      reconcile();
      return;
    }
    for (SourceFault fault : pending.faults()) {
      if (fault.disposition() == FaultDisposition.REJECT_SOURCE) {
        rejectedSources.increment();
        runtime.recovery.rejectSource(fault.member(), fault.publisherId());
      } else if (fault.disposition() == FaultDisposition.REPORT_RESOURCE_FAILURE) {
        runtime.recovery.resync(fault.member(), fault.publisherId());
      }
    }
  }

  void onHubFault(KvPoolId pool, ProducerIdentity producer, RelayErrorReason reason, String message) {
    hubFaults.increment();
    for (Slot s : slots.values()) {
      PoolRuntime r = s.runtime;
      if (r != null && r.producer().equals(producer)) {
        r.fenceReason = "hub fault " + reason + ": " + message;
        reconcile();
        return;
      }
    }
  }

  // ------------------------------------------------------------------ load

  void observeLoad(PoolRuntime runtime, EventEnvelope envelope, ActiveLoad load) {
    if (runtime.retired) {
      return;
    }
    loadObservations.increment();
    if (runtime.load.observe(envelope, load, engine.epochMillis()) != dev.kvrelay.engine.load.ObserveOutcome.APPLIED) {
      loadRejected.increment();
    }
  }

  /**
   * Builds and publishes the next pool-load and serving-load windows (every LOAD_WINDOW_MS). The first ticked window
   * is sequence 1 (the startup window is 0). A publisher error (or the window sequence space running out) stops the
   * ticker for good, so no later window is ever published and the broadcasts keep the last good one as current; it
   * then terminates the engine (wan-grpc.md §4.1: the transport supervisor cancels the relay), unless the engine is
   * already closing, in which case the error is swallowed (counted, logged at debug).
   */
  void tickLoad() {
    if (stopped || loadStopped) {
      return;
    }
    long now = engine.epochMillis();
    List<PoolLoadReport> reports = new ArrayList<>();
    TreeMap<KvPoolId, PoolRuntime> sorted = new TreeMap<>();
    for (PoolRuntime r : runtimes()) {
      sorted.put(r.poolId(), r);
    }
    List<dev.kvrelay.engine.load.ServingPoolInput> serving = new ArrayList<>();
    for (PoolRuntime r : sorted.values()) {
      dev.kvrelay.engine.load.PoolLoadSnapshot snapshot = r.load.snapshot(now);
      reports.add(new PoolLoadReport(r.producer(), snapshot));
      // Every catalog pool is an active runtime (and the reverse), so this is the §4.2 "every catalog pool" list.
      serving.add(new dev.kvrelay.engine.load.ServingPoolInput(r.descriptor, r.runtimeConfigs, snapshot));
    }
    LoadPublisher publisher = engine.loadPublisher();
    try {
      publisher.poolLoad(loadWindows.next(now, reports));
      publisher.servingLoad(servingLoadWindows.next(now, serving));
    } catch (LoadWindowException | RuntimeException e) {
      loadPublisherFailed(e);
    }
  }

  private void loadPublisherFailed(Exception e) {
    loadStopped = true;
    loadPublishErrors.increment();
    engine.stopLoadTicker();
    if (stopped || engine.closing()) {
      LOG.debug("load publisher error after shutdown began; ignored: {}", e.toString());
      return;
    }
    engine.fail(new IllegalStateException("load publisher failed: " + e.getMessage(), e));
  }

  // ------------------------------------------------------------------ publication

  private void publish() {
    if (catalog.revision() != lastPublishedCatalogRevision) {
      lastPublishedCatalogRevision = catalog.revision();
      CatalogSnapshot s = catalog.snapshot();
      engine.publishCatalog(s, CatalogUpdate.ofDescriptors(s.identity(), s.revision(), s.pools()));
    }
    TopologySnapshot t = topology.snapshot();
    if (t.revision() != lastPublishedTopologyRevision) {
      lastPublishedTopologyRevision = t.revision();
      engine.publishReadiness(t);
    }
  }

  /**
   * Registry shutdown (producer.md §2.7): stop accepting, publish the catalog clear and an empty topology,
   * fence every actor.
   */
  List<CompletableFuture<Void>> shutdown() {
    List<CompletableFuture<Void>> done = new ArrayList<>();
    if (stopped) {
      return done;
    }
    List<PoolRuntime> running = runtimes();
    LOG.info("relay host stopping: {} pools withdrawn and fenced", running.size());
    for (Slot s : slots.values()) {
      s.runtime = null;
    }
    catalog.clear();
    topology.stop();
    publish();
    stopped = true;
    for (PoolRuntime r : running) {
      r.hub.retire();
      done.add(r.teardown(true));
    }
    return done;
  }

  // ------------------------------------------------------------------ event-plane listeners

  /** Confined to the event plane's delivery thread of one subscription: live kv-events into recovery. */
  private final class KvEventsListener implements EventListener {
    private final PoolRuntime runtime;

    KvEventsListener(PoolRuntime runtime) {
      this.runtime = runtime;
    }

    @Override
    public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
      runtime.recovery.onLiveEvent(envelope, event);
    }

    @Override
    public void onLoad(EventEnvelope envelope, ActiveLoad load) {
      unexpectedMessages.increment();
    }

    @Override
    public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
      eventDecodeErrors.increment();
      LOG.debug("kv-events decode error: {}", error.getMessage());
    }

    /**
     * Counts and logs the fault, then hands it to the pool's recovery (runtime-inputs §6.3): sequence faults and
     * drops recover the sources concerned, a disconnect marks them suspect, a reconnect recovers all of them.
     */
    @Override
    public void onFault(EventPlaneFault fault) {
      countAndLog(fault, runtime, true);
      runtime.recovery.onPlaneFault(fault);
    }
  }

  private static java.util.EnumMap<EventPlaneFaultKind, LongAdder> newFaultCounters() {
    java.util.EnumMap<EventPlaneFaultKind, LongAdder> m = new java.util.EnumMap<>(EventPlaneFaultKind.class);
    for (EventPlaneFaultKind k : EventPlaneFaultKind.values()) {
      m.put(k, new LongAdder());
    }
    return m;
  }

  /** The fault counters by kind (engine stats). */
  Map<EventPlaneFaultKind, Long> planeFaultCounts() {
    java.util.EnumMap<EventPlaneFaultKind, Long> out = new java.util.EnumMap<>(EventPlaneFaultKind.class);
    planeFaults.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  /**
   * One count and one log line per fault (any delivery thread). Connection loss and return concern the whole
   * plane and reach every subscription: the first Disconnected after a connected state logs at WARN, the first
   * Reconnected after it at INFO, the other subscriptions' copies at DEBUG. Message losses log at WARN on the
   * kv-events subscription (DEBUG on kv_metrics: loads are advisory and the next report replaces them), a new
   * publisher at INFO.
   */
  private void countAndLog(EventPlaneFault fault, PoolRuntime runtime, boolean kvEvents) {
    EventPlaneFaultKind kind = EventPlaneFaultKind.of(fault);
    planeFaults.get(kind).increment();
    String topic = kvEvents ? EventTopics.KV_EVENTS : EventTopics.KV_METRICS;
    switch (kind) {
      case DISCONNECTED -> {
        if (planeDisconnected.compareAndSet(false, true)) {
          LOG.warn("event plane connection lost ({}); sources are suspect until it returns", fault.describe());
        } else {
          LOG.debug("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
        }
      }
      case RECONNECTED -> {
        if (planeDisconnected.compareAndSet(true, false)) {
          LOG.info("event plane connection back ({}); recovering every source", fault.describe());
        } else {
          LOG.debug("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
        }
      }
      case NEW_PUBLISHER -> LOG.info("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
      default -> {
        if (kvEvents) {
          LOG.warn("pool {} {}: {}; recovering", runtime.poolId(), topic, fault.describe());
        } else {
          LOG.debug("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
        }
      }
    }
  }

  /** Confined to the event plane's delivery thread of one subscription: kv_metrics onto the control task. */
  private final class LoadListener implements EventListener {
    private final PoolRuntime runtime;

    LoadListener(PoolRuntime runtime) {
      this.runtime = runtime;
    }

    @Override
    public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
      unexpectedMessages.increment();
    }

    @Override
    public void onLoad(EventEnvelope envelope, ActiveLoad load) {
      engine.control(() -> observeLoad(runtime, envelope, load));
    }

    @Override
    public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
      eventDecodeErrors.increment();
    }

    @Override
    public void onFault(EventPlaneFault fault) {
      countAndLog(fault, runtime, false);
    }
  }

  /** Diagnostic map of slot states, endpoint → text. */
  Map<String, String> slotStates() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<DynamoEndpointId, Slot> e : slots.entrySet()) {
      PoolRuntime r = e.getValue().runtime;
      out.put(e.getKey().toString(), r == null ? "discovered" : "active " + r.poolId());
    }
    return out;
  }
}
