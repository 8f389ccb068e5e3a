package dev.kvrelay.launcher.system;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.stats.PoolStats.QueryFailureKind;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.launcher.health.RelayHealth;
import dev.kvrelay.launcher.health.SourcesStatus;
import dev.kvrelay.launcher.health.WanStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable: what {@code /status} and {@code /status.json} show, read once per request from the engine's stats,
 * catalog-derived pool descriptors and readiness topology, the sampler's history and the latest load windows its
 * watches took (so both routes show the same data).
 *
 * @param dcName the configured DC name
 * @param dcId its derived id, 16 hex digits
 * @param drtInstanceId the relay's runtime instance id (unsigned)
 * @param incarnation the relay incarnation (unsigned)
 * @param uptime since the JVM started
 * @param ready the health object's {@code healthy}
 * @param catalogRevision the catalog revision
 * @param topologyRevision the readiness topology revision
 * @param poolSubscribers open pool streams, all pools (the stats expose no per-pool count)
 * @param poolLagged pool streams ended as lagged, all pools
 * @param pools one row per pool, by serving endpoint
 * @param readiness one row per (namespace, model)
 * @param load the load windows' relay-wide counters and coverage (per-pool counters are in each pool)
 * @param loadWindows the latest pool-load and serving-load windows, per pool and model (per-pool coverage)
 * @param connections the plugins' and the WAN listener's connection rows
 * @param errors error counters of the whole relay, by name (zeros included; {@link StatusCounters#relay})
 * @param recentErrors the last errors and warnings seen, oldest first ({@link RecentErrors})
 * @param recentErrorsRecorded entries the ring recorded since the system server started
 * @param recentErrorsDropped of them, entries pushed out of the full ring
 * @param unattachedSubscribers pool subscribers whose pool has no row (a generation that just ended)
 * @param sourcesLastError the sources file's last error, or null
 */
record StatusReport(
    String dcName,
    String dcId,
    long drtInstanceId,
    long incarnation,
    Duration uptime,
    boolean ready,
    long catalogRevision,
    long topologyRevision,
    int poolSubscribers,
    long poolLagged,
    List<Pool> pools,
    List<Readiness> readiness,
    Load load,
    StatusLoadWindows loadWindows,
    List<Connection> connections,
    Map<String, Long> errors,
    List<RecentErrors.Entry> recentErrors,
    long recentErrorsRecorded,
    long recentErrorsDropped,
    List<Subscriber> unattachedSubscribers,
    @Nullable String sourcesLastError) {

  StatusReport {
    pools = List.copyOf(pools);
    readiness = List.copyOf(readiness);
    connections = List.copyOf(connections);
    errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
    recentErrors = List.copyOf(recentErrors);
    unattachedSubscribers = List.copyOf(unattachedSubscribers);
  }

  /**
   * Immutable: one pool.
   *
   * @param endpoint serving endpoint {@code ns.comp.ep}
   * @param state the pool actor's state ({@code RUNNING}, {@code SHUT_DOWN}, {@code FENCED}) or {@code UNKNOWN}
   * @param producerIncarnation the producer incarnation (unsigned)
   * @param generation the layout generation (unsigned)
   * @param buckets CKF bucket count
   * @param slots CKF slots in total
   * @param occupiedSlots non-empty CKF slots
   * @param residentHashes canonical hashes resident in the ownership table
   * @param capacityOmissions events omitted for filter capacity
   * @param sequence last published CBI1 sequence (unsigned)
   * @param appliedEvents events the actor applied
   * @param eventsPerSecond latest sampled applied events per second
   * @param sequencePerSecond latest sampled published-sequence advance per second (the publication rate)
   * @param publishedDeltas deltas published
   * @param publishedSnapshots snapshots published
   * @param recovery recovery counters by name
   * @param load load-window counters by name (the pool's load aggregator)
   * @param subscribers the pool's subscribers with their lag, by subscriber id
   * @param sources per-source recovery state from {@code PoolStats.Recovery.sources()} (see
   *     {@link #sources(PoolStats.Recovery)}), empty when the pool has no bound sources
   * @param history the sampled rates and lag (sparklines)
   */
  record Pool(
      String endpoint,
      String state,
      long producerIncarnation,
      long generation,
      int buckets,
      long slots,
      long occupiedSlots,
      long residentHashes,
      long capacityOmissions,
      long sequence,
      long appliedEvents,
      double eventsPerSecond,
      double sequencePerSecond,
      long publishedDeltas,
      long publishedSnapshots,
      Map<String, Long> recovery,
      Map<String, Long> load,
      List<Subscriber> subscribers,
      List<Source> sources,
      StatusSampler.History history) {
    Pool {
      recovery = Collections.unmodifiableMap(new LinkedHashMap<>(recovery));
      load = Collections.unmodifiableMap(new LinkedHashMap<>(load));
      subscribers = List.copyOf(subscribers);
      sources = List.copyOf(sources);
    }

    /** Occupied over total slots, 0 without slots. */
    double fill() {
      return slots == 0 ? 0 : (double) occupiedSlots / slots;
    }

    /** The largest sequence lag of the pool's subscribers now (u64 compare), 0 without subscribers. */
    long maxLag() {
      long max = 0;
      for (Subscriber sub : subscribers) {
        max = Long.compareUnsigned(sub.sequenceLag(), max) > 0 ? sub.sequenceLag() : max;
      }
      return max;
    }
  }

  /**
   * Immutable: one pool-stream subscriber and how far it is behind (engine {@code RelayEngineStats.SubscriberLag}).
   *
   * @param subscriberId the id the stream was opened with
   * @param stream the WAN stream type
   * @param queuedFrames delta frames queued and not yet taken
   * @param queuedBytes their cost against the queue's byte budget
   * @param publishedSequence newest frame queued for it (u64)
   * @param deliveredSequence last frame handed to it (u64)
   * @param sequenceLag deltas published to it and not yet taken
   * @param pendingSnapshotChunks snapshot chunks not yet taken
   * @param connectedSinceMicros when the stream was opened, µs since the epoch
   */
  record Subscriber(String subscriberId, String stream, int queuedFrames, long queuedBytes, long publishedSequence,
      long deliveredSequence, long sequenceLag, int pendingSnapshotChunks, long connectedSinceMicros) {
    static Subscriber of(RelayEngineStats.SubscriberLag l) {
      return new Subscriber(l.subscriberId(), l.stream(), l.queuedFrames(), l.queuedBytes(), l.publishedSequence(),
          l.deliveredSequence(), l.sequenceLag(), l.pendingSnapshotChunks(), l.connectedSinceMicros());
    }
  }

  /**
   * Immutable: the recovery of one bound source, from the engine's per-source recovery stats
   * ({@code PoolStats.Recovery.sources()}).
   *
   * @param workerId the worker id (u64)
   * @param dpRank the data-parallel rank (u32)
   * @param publisherId the event-plane publisher id (u64)
   * @param state where its recovery stands ({@code LIVE}, {@code RECOVERING}, …)
   * @param recoverable whether it has a recovery target
   * @param suspect marked by a transport disconnect, not recovered yet
   * @param lastEventAgeMs ms since its last live event, -1 if none
   * @param resets rank resets accepted for it
   * @param bufferedEvents live events buffered now
   */
  record Source(long workerId, int dpRank, long publisherId, String state, boolean recoverable, boolean suspect,
      long lastEventAgeMs, long resets, int bufferedEvents) {}

  /**
   * Immutable: the load windows' relay-wide counters from the engine's stats (per-pool coverage — observed versus
   * expected ranks — is carried by the published window only: see {@link StatusLoadWindows}).
   *
   * @param windowsPublished pool-load windows published after the startup window
   * @param servingWindowsPublished serving-load windows published after the startup window
   * @param degradedCoveragePools pools of the current window with fewer observed than expected ranks or unknown
   *     capacity
   * @param catalogPools pools in the catalog (the window lists each)
   * @param observations load reports received
   * @param rejected load reports not applied
   * @param publishErrors load window publisher failures
   * @param subscribers SubscribeKvPoolLoad streams open
   * @param servingSubscribers SubscribeServingLoad streams open
   */
  record Load(long windowsPublished, long servingWindowsPublished, int degradedCoveragePools, int catalogPools,
      long observations, long rejected, long publishErrors, int subscribers, int servingSubscribers) {}

  /**
   * Immutable: one plugin's (or the WAN listener's) connection row. The plugin SPIs expose no connection state of
   * their own; {@code state} is derived from what the engine counts ({@code DISCONNECTED} while a subscription
   * reported more disconnects than reconnects) or {@code UNKNOWN} when nothing tells.
   *
   * @param plugin what connects ({@code discovery}, {@code event plane}, {@code request plane}, {@code WAN gRPC})
   * @param scope what the row covers ({@code relay}, or a pool's serving endpoint)
   * @param state the derived state
   * @param counters its counters by name
   * @param detail a free-text detail (mode, address, last error), or null
   */
  record Connection(String plugin, String scope, String state, Map<String, Long> counters, @Nullable String detail) {
    Connection {
      counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
    }
  }

  /**
   * Immutable: readiness of one (namespace, model).
   *
   * @param namespace the Dynamo namespace
   * @param model the canonical model id
   * @param state the serving readiness state
   * @param presentRoles roles present
   * @param missingRoles roles missing
   * @param adapters the model's adapters
   */
  record Readiness(String namespace, String model, String state, List<String> presentRoles,
      List<String> missingRoles, List<Adapter> adapters) {
    Readiness {
      presentRoles = List.copyOf(presentRoles);
      missingRoles = List.copyOf(missingRoles);
      adapters = List.copyOf(adapters);
    }
  }

  /**
   * Immutable: one adapter's readiness.
   *
   * @param model the adapter's canonical model id
   * @param state its readiness state
   * @param missingRoles roles it misses
   */
  record Adapter(String model, String state, List<String> missingRoles) {
    Adapter {
      missingRoles = List.copyOf(missingRoles);
    }
  }

  /** Reads the report now, from one {@code engine.stats()} read. */
  static StatusReport read(RelayEngine engine, RelayHealth health, String mode, StatusSampler sampler,
      Duration uptime) {
    RelayEngineStats s = engine.stats();
    TopologySnapshot topology = engine.readiness();
    Map<KvPoolId, List<Subscriber>> subscribers = new LinkedHashMap<>();
    for (RelayEngineStats.SubscriberLag l : s.hubs().subscribers()) {
      subscribers.computeIfAbsent(l.pool(), k -> new ArrayList<>()).add(Subscriber.of(l));
    }
    List<Pool> pools = new ArrayList<>();
    Set<KvPoolId> attached = new HashSet<>();
    for (PoolStats p : s.pools()) {
      attached.add(p.descriptor().poolId());
      pools.add(pool(p, subscribers.getOrDefault(p.descriptor().poolId(), List.of()), sampler));
    }
    List<Subscriber> unattached = new ArrayList<>();
    subscribers.forEach((pool, subs) -> {
      if (!attached.contains(pool)) {
        unattached.addAll(subs);
      }
    });
    pools.sort(Comparator.comparing(Pool::endpoint));
    List<Readiness> readiness = new ArrayList<>();
    for (TopologyEntry e : topology.entries()) {
      List<Adapter> adapters = new ArrayList<>();
      for (AdapterReadiness a : e.adapters()) {
        adapters.add(new Adapter(a.canonicalModelId(), a.state().name(), roles(a.missingRoles())));
      }
      readiness.add(new Readiness(e.namespace(), e.canonicalModelId(), e.state().name(), roles(e.presentRoles()),
          roles(e.missingRoles()), adapters));
    }
    readiness.sort(Comparator.comparing(Readiness::namespace).thenComparing(Readiness::model));
    RelayEngineStats.Streams w = s.streams();
    Load load = new Load(w.loadUpdates(), w.servingLoadUpdates(), w.degradedLoadCoveragePools(),
        engine.catalog().pools().size(), s.loadObservations(), s.loadRejected(), s.loadPublishErrors(),
        w.load().subscribers(), w.servingLoad().subscribers());
    RecentErrors ring = sampler.errors();
    return new StatusReport(engine.config().dcName(), engine.config().dcId().hex(), s.identity().drtInstanceId(),
        s.identity().relayIncarnation(), uptime, health.healthy(), s.catalogRevision(), s.topologyRevision(),
        w.pool().subscribers(), w.pool().lagged(), pools, readiness, load,
        StatusLoadWindows.read(sampler, engine.catalog().pools(), System.currentTimeMillis()),
        connections(s, health, mode),
        StatusCounters.relay(s), ring.entries(), ring.recorded(), ring.dropped(), unattached,
        health.sources().lastError());
  }

  /** The connection rows: discovery, the event plane (relay-wide, then per pool), the request plane, WAN gRPC. */
  private static List<Connection> connections(RelayEngineStats s, RelayHealth health, String mode) {
    List<Connection> out = new ArrayList<>();
    Map<String, Long> discovery = new LinkedHashMap<>();
    discovery.put("reconciles", s.reconciles());
    discovery.put("watchErrors", s.discoveryErrors());
    discovery.put("decodeErrors", s.discoveryDecodeErrors());
    SourcesStatus src = health.sources();
    discovery.put("sources", src.count());
    String detail = "mode " + mode + (src.appliedRevision() == null ? "" : ", sources revision "
        + src.appliedRevision()) + (src.lastError() == null ? "" : ", last error: " + src.lastError());
    out.add(new Connection("discovery", StatusCounters.RELAY, "UNKNOWN", discovery, detail));

    Map<String, Long> plane = new LinkedHashMap<>();
    plane.put("disconnected", s.eventPlaneFaults(EventPlaneFaultKind.DISCONNECTED));
    plane.put("reconnected", s.eventPlaneFaults(EventPlaneFaultKind.RECONNECTED));
    plane.put("messagesDropped", s.eventPlaneFaults(EventPlaneFaultKind.MESSAGES_DROPPED));
    plane.put("newPublishers", s.eventPlaneFaults(EventPlaneFaultKind.NEW_PUBLISHER));
    plane.put("sequenceGaps", s.eventPlaneFaults(EventPlaneFaultKind.SEQUENCE_GAP));
    plane.put("sequenceRegressions", s.eventPlaneFaults(EventPlaneFaultKind.SEQUENCE_REGRESSION));
    plane.put("channelErrors", s.channelErrors());
    plane.put("decodeErrors", s.eventDecodeErrors());
    plane.put("unexpectedMessages", s.unexpectedMessages());
    out.add(new Connection("event plane", StatusCounters.RELAY, planeState(
        s.eventPlaneFaults(EventPlaneFaultKind.DISCONNECTED),
        s.eventPlaneFaults(EventPlaneFaultKind.RECONNECTED)), plane,
        "all subscriptions (kv-events and kv_metrics)"));
    long queries = 0;
    long failures = 0;
    long timeouts = 0;
    long retries = 0;
    long permitWaits = 0;
    for (PoolStats p : s.pools()) {
      PoolStats.Recovery r = p.recovery();
      Map<String, Long> c = new LinkedHashMap<>();
      long down = r.planeFaults(EventPlaneFaultKind.DISCONNECTED);
      long up = r.planeFaults(EventPlaneFaultKind.RECONNECTED);
      c.put("disconnected", down);
      c.put("reconnected", up);
      c.put("messagesDropped", r.planeFaults(EventPlaneFaultKind.MESSAGES_DROPPED));
      c.put("suspectSources", r.suspectSources());
      c.put("faultRecoveries", r.faultRecoveries());
      out.add(new Connection("event plane", p.descriptor().servingEndpoint().dottedName(), planeState(down, up), c,
          "kv-events subscription"));
      queries += r.queries();
      for (QueryFailureKind k : QueryFailureKind.values()) {
        failures += r.queryFailures(k);
      }
      timeouts += r.timeouts();
      retries += r.retries();
      permitWaits += r.permitWaits();
    }
    Map<String, Long> req = new LinkedHashMap<>();
    req.put("queries", queries);
    req.put("failures", failures);
    req.put("timeouts", timeouts);
    req.put("retries", retries);
    req.put("permitWaits", permitWaits);
    out.add(new Connection("request plane", StatusCounters.RELAY, "UNKNOWN", req, "recovery queries, all pools"));
    WanStatus wan = health.wan();
    String wanState = !wan.enabled() ? "DISABLED" : wan.serving() && wan.lastError() == null ? "SERVING"
        : "NOT_SERVING";
    String wanDetail = wan.boundAddress() == null ? null : wan.boundAddress();
    if (wan.lastError() != null) {
      wanDetail = (wanDetail == null ? "" : wanDetail + ", ") + "last error: " + wan.lastError();
    }
    Map<String, Long> wanCounters = new LinkedHashMap<>();
    wanCounters.put("catalogSubscribers", (long) s.streams().catalog().subscribers());
    wanCounters.put("poolSubscribers", (long) s.streams().pool().subscribers());
    wanCounters.put("readinessSubscribers", (long) s.streams().readiness().subscribers());
    out.add(new Connection("WAN gRPC", StatusCounters.RELAY, wanState, wanCounters, wanDetail));
    return out;
  }

  /** {@code DISCONNECTED} while disconnects outnumber reconnects (u64), else {@code CONNECTED}. */
  private static String planeState(long disconnects, long reconnects) {
    return Long.compareUnsigned(disconnects, reconnects) > 0 ? "DISCONNECTED" : "CONNECTED";
  }

  /** The pool's per-source recovery state, one {@link Source} per entry of {@code PoolStats.Recovery.sources()}. */
  static List<Source> sources(PoolStats.Recovery r) {
    List<Source> out = new ArrayList<>(r.sources().size());
    for (dev.kvrelay.engine.stats.PoolStats.SourceRecovery s : r.sources()) {
      out.add(new Source(s.workerId(), s.dpRank(), s.publisherId(), s.state().name(), s.recoverable(), s.suspect(),
          s.lastEventAgeMs(), s.resets(), s.bufferedEvents()));
    }
    return List.copyOf(out);
  }

  private static Pool pool(PoolStats p, List<Subscriber> unsorted, StatusSampler sampler) {
    List<Subscriber> subscribers = new ArrayList<>(unsorted);
    subscribers.sort(Comparator.comparing(Subscriber::subscriberId));
    KvPoolDescriptor d = p.descriptor();
    String endpoint = d.servingEndpoint().dottedName();
    int buckets = d.producer().ckfFormat().bucketCount();
    long slots = buckets * (long) d.producer().ckfFormat().slotsPerBucket();
    PoolStats.Actor a = p.actor();
    PoolStats.Recovery r = p.recovery();
    Map<String, Long> recovery = new LinkedHashMap<>();
    recovery.put("ingested", r.applied());
    recovery.put("gaps", r.gaps());
    recovery.put("queries", r.queries());
    recovery.put("retries", r.retries());
    recovery.put("timeouts", r.timeouts());
    recovery.put("replacements", r.replacements());
    recovery.put("lifecycleResets", r.lifecycleResets());
    recovery.put("liveOnlyResets", r.liveOnlyResets());
    recovery.put("degradedResets", r.degradedResets());
    recovery.put("resyncs", r.resyncs());
    recovery.put("exhausted", r.exhausted());
    recovery.put("bufferOverflows", r.bufferOverflows());
    recovery.put("inboxOverflows", r.inboxOverflows());
    recovery.put("backpressureWaits", r.backpressureWaits());
    recovery.put("submitRejected", r.submitRejected());
    recovery.put("stale", r.stale());
    recovery.put("discarded", r.discarded());
    recovery.put("suspectSources", r.suspectSources());
    PoolStats.Load l = p.load();
    Map<String, Long> load = new LinkedHashMap<>();
    load.put("applied", l.applied());
    load.put("ignoredAdvisory", l.ignoredAdvisory());
    load.put("stale", l.stale());
    load.put("gaps", l.gaps());
    load.put("unknownRank", l.unknownRank());
    load.put("discardedAboveCapacity", l.discardedAboveCapacity());
    load.put("wrongTopic", l.wrongTopic());
    load.put("invalidRefreshes", l.invalidRefreshes());
    load.put("streamClears", l.streamClears());
    load.put("schedulerListingFailures", l.schedulerListingFailures());
    StatusSampler.History history = sampler.history(endpoint);
    return new Pool(endpoint, a == null ? "UNKNOWN" : a.state().name(), d.producer().producerIncarnation(),
        d.producer().layoutGeneration(), buckets, slots, a == null ? 0 : a.producer().occupiedSlots(),
        a == null ? 0 : a.producer().residentCount(), a == null ? 0 : a.capacityOmissions(),
        a == null ? 0 : a.producer().lastSequence(), a == null ? 0 : a.appliedEvents(),
        history.lastEventsPerSecond(), history.lastSequencePerSecond(), a == null ? 0 : a.publishedDeltas(),
        a == null ? 0 : a.publishedSnapshots(), recovery, load, subscribers, sources(r), history);
  }

  private static List<String> roles(List<WorkerRole> roles) {
    return roles.stream().map(WorkerRole::text).toList();
  }
}
