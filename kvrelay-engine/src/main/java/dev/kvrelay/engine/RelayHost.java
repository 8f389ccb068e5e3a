package dev.kvrelay.engine;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.engine.actor.FaultDisposition;
import dev.kvrelay.engine.actor.SourceFault;
import dev.kvrelay.engine.catalog.PoolCatalog;
import dev.kvrelay.engine.load.LoadWindowException;
import dev.kvrelay.engine.membership.EndpointMembership;
import dev.kvrelay.engine.membership.KvSourceView;
import dev.kvrelay.engine.membership.MaterializationDecision;
import dev.kvrelay.engine.membership.MembershipProjector;
import dev.kvrelay.engine.membership.MembershipView;
import dev.kvrelay.engine.topology.EndpointTopology;
import dev.kvrelay.engine.topology.PoolLink;
import dev.kvrelay.engine.topology.TopologyPublisher;
import dev.kvrelay.engine.wan.DescriptorException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.ModelKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confined to the engine's control task: every method runs on the single control thread (except {@link
 * #startLoadTicker()}, once, at engine start). It applies what discovery says ({@link DiscoveredRecords}), projects
 * memberships, runs one slot per serving endpoint (producer.md §2.6) that starts, updates and retires pool
 * generations (§2.7), and publishes the catalog and the readiness topology into its {@link Publication}. It is given
 * {@link HostServices}, not the engine; its collaborators do the rest: {@link PoolGenerationWiring} builds a
 * generation, {@link EventChannelSync} connects its subscriptions, {@link EventPlaneListeners} feeds it, {@link
 * LoadRouting} builds the load windows.
 */
final class RelayHost {
  /** The host's logger; its collaborators log through it too, so the log category is the same as before the split. */
  static final Logger LOG = LoggerFactory.getLogger(RelayHost.class);

  /** Start-failure retry: 100 ms doubling, capped at 5 s (producer.md §2.6). */
  static final long RETRY_INITIAL_MS = 100;
  static final long RETRY_MAX_MS = 5_000;

  private final ControlTask control;
  private final LongSupplier nanoTime;
  private final DiscoveredRecords discovered = new DiscoveredRecords();
  private final MembershipProjector projector;
  private final TreeMap<DynamoEndpointId, Slot> slots = new TreeMap<>();
  private final PoolCatalog catalog;
  private final TopologyPublisher topology = new TopologyPublisher();
  private final HostCounters counters = new HostCounters();
  private final LoadRouting load;
  private final Publication publication;
  private final EventChannelSync channels;
  private final PoolGenerationWiring wiring;
  private long nextSlotIncarnation = 1;
  private long lastPublishedCatalogRevision = -1;
  private long lastPublishedTopologyRevision = -1;
  private boolean stopped;

  /**
   * Confined to the control task: one serving endpoint's slot, its incarnation (claims topology availability) and
   * its pool.
   */
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

  /**
   * A host with an empty catalog and topology and the startup load windows (sequence 0) as of now, and the
   * publication outlets showing them.
   *
   * @throws LoadWindowException if the startup load windows cannot be built
   */
  RelayHost(HostServices services) throws LoadWindowException {
    RelayEngineConfig config = services.config();
    this.control = services.control();
    this.nanoTime = services.nanoTime();
    this.projector = new MembershipProjector(config.dcId(), config.scope());
    this.catalog = new PoolCatalog(services.identity());
    this.load = new LoadRouting(counters, control, services.epochMillis(), config.value(RelayConfigKey.LOAD_WINDOW_MS),
        services.epochMillis().getAsLong());
    this.publication = new Publication(catalog.snapshot(), topology.snapshot(), load.initialLoadWindow(),
        load.initialServingLoadWindow(), config.loadFanoutCapacity(), services.loadPublisher());
    this.channels = new EventChannelSync(services.pools().eventPlane(), counters);
    this.wiring = new PoolGenerationWiring(services, counters, new EventPlaneListeners(counters, control, load));
  }

  /** The host's counters (engine stats). */
  HostCounters counters() {
    return counters;
  }

  /** Where the host publishes the catalog, readiness and load windows (thread-safe; subscribers read it). */
  Publication publication() {
    return publication;
  }

  /** Starts the load ticker (called once, by the thread that starts the engine). */
  void startLoadTicker() {
    load.startTicker(this::tickLoad);
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
    discovered.replaceAll(records);
    reconcile();
  }

  void onUpserted(DiscoveryRecord record) {
    discovered.upsert(record);
    reconcile();
  }

  void onRemoved(DiscoveryKey key) {
    if (discovered.remove(key)) {
      reconcile();
    }
  }

  void onModelTaintsUpdated(ModelKey key, List<String> taints) {
    if (discovered.updateTaints(key, taints)) {
      reconcile();
    } else {
      LOG.warn("taints update for an unknown model card {}; ignored", key);
    }
  }

  void onResync(List<DiscoveryRecord> records) {
    discovered.resync(records);
    reconcile();
  }

  void onError(DiscoveryException error) {
    if (error instanceof DiscoveryDecodeException) {
      counters.discoveryDecodeErrors.increment();
    } else {
      counters.discoveryErrors.increment();
    }
    LOG.warn("discovery: {}", error.getMessage());
  }

  // ------------------------------------------------------------------ reconcile

  /** Re-projects everything discovery says and moves every slot towards it. */
  void reconcile() {
    if (stopped) {
      return;
    }
    counters.reconciles.increment();
    Map<DynamoEndpointId, Set<Long>> live = discovered.liveInstances();
    MembershipView view = projector.project(discovered.models());
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
    KvSourceView sourceView = KvSourceView.of(m, discovered.adverts());
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
    if (runtime == null && desired != null && (!slot.backingOff || nanoTime.getAsLong() - slot.retryAtNanos >= 0)) {
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
    runtime.updateSources(discovered.bindings(sourceView));
    channels.sync(runtime, discovered.records());
  }

  // ------------------------------------------------------------------ start and retire

  private void start(Slot slot, EndpointMembership m, MaterializationDecision.Materialize binding, KvSourceView view) {
    PoolRuntime runtime;
    try {
      runtime = wiring.build(slot.incarnation, m, binding, this::onSourceFaults);
    } catch (PoolGenerationWiring.StartFailure e) {
      startFailed(slot, binding, e.getMessage());
      return;
    }
    runtime.updateSources(discovered.bindings(view));
    channels.sync(runtime, discovered.records());
    catalog.upsert(runtime.descriptor);
    slot.runtime = runtime;
    slot.failedBinding = null;
    slot.retryDelayMs = 0;
    slot.backingOff = false;
    counters.poolStarts.increment();
    LOG.info("pool {} started for {} (layout generation {})", runtime.poolId(), m.endpoint(),
        Long.toUnsignedString(runtime.descriptor.layoutGeneration()));
  }

  private void startFailed(Slot slot, MaterializationDecision.Materialize binding, @Nullable String why) {
    counters.poolStartFailures.increment();
    slot.retryDelayMs = slot.retryDelayMs == 0 ? RETRY_INITIAL_MS : Math.min(RETRY_MAX_MS, slot.retryDelayMs * 2);
    slot.retryAtNanos = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(slot.retryDelayMs);
    slot.backingOff = true;
    boolean first = slot.failedBinding == null;
    slot.failedBinding = binding;
    if (first) {
      LOG.error("pool start failed ({}); retrying in {} ms", why, slot.retryDelayMs);
    } else {
      LOG.debug("pool start failed ({}); retrying in {} ms", why, slot.retryDelayMs);
    }
    control.after(slot.retryDelayMs, this::reconcile);
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
    // The future is not needed: it only marks the actor's end (it never completes exceptionally).
    CompletableFuture<Void> unused = runtime.teardown(fenced);
    (fenced ? counters.fencedRetirements : counters.gracefulRetirements).increment();
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
        counters.faultQueueOverflows.increment();
      }
      runtime.fenceReason = pending.fence() ? "producer fault (fence and rebuild)"
          : "more than " + SourceFaultQueue.MAX_PENDING_SOURCE_FAULTS + " sources with pending faults";
      reconcile();
      return;
    }
    for (SourceFault fault : pending.faults()) {
      if (fault.disposition() == FaultDisposition.REJECT_SOURCE) {
        counters.rejectedSources.increment();
        runtime.recovery.rejectSource(fault.member(), fault.publisherId());
      } else if (fault.disposition() == FaultDisposition.REPORT_RESOURCE_FAILURE) {
        runtime.recovery.resync(fault.member(), fault.publisherId());
      }
    }
  }

  void onHubFault(KvPoolId pool, ProducerIdentity producer, RelayErrorReason reason, String message) {
    counters.hubFaults.increment();
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

  /** The load ticker (every LOAD_WINDOW_MS): the next windows of every active generation, until the host stops. */
  private void tickLoad() {
    if (stopped) {
      return;
    }
    load.tick(runtimes(), publication.loadPublisher());
  }

  // ------------------------------------------------------------------ publication

  private void publish() {
    if (catalog.revision() != lastPublishedCatalogRevision) {
      lastPublishedCatalogRevision = catalog.revision();
      publication.publishCatalog(catalog.snapshot());
    }
    TopologySnapshot t = topology.snapshot();
    if (t.revision() != lastPublishedTopologyRevision) {
      lastPublishedTopologyRevision = t.revision();
      publication.publishReadiness(t);
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
