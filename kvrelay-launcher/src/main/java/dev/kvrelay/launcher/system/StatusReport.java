package dev.kvrelay.launcher.system;

import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.PoolStats;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineStats;
import dev.kvrelay.engine.stats.HubRegistryStats;
import dev.kvrelay.engine.stats.LoadCounters;
import dev.kvrelay.engine.stats.PoolActorStats;
import dev.kvrelay.engine.stats.RecoveryStats;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.launcher.health.RelayHealth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Immutable: what {@code /status} and {@code /status.json} show, read once per request from the engine's stats,
 * catalog-derived pool descriptors and readiness topology, and the sampler's history (so both routes show the same
 * data).
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
 * @param errors error counters of the whole relay, by name (zeros included)
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
    Map<String, Long> errors,
    @Nullable String sourcesLastError) {

  StatusReport {
    pools = List.copyOf(pools);
    readiness = List.copyOf(readiness);
    errors = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(errors));
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
   * @param load load-window counters by name
   * @param history the sampled rates (sparklines)
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
      StatusSampler.History history) {
    Pool {
      recovery = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(recovery));
      load = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(load));
    }

    /** Occupied over total slots, 0 without slots. */
    double fill() {
      return slots == 0 ? 0 : (double) occupiedSlots / slots;
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

  /** Reads the report now. */
  static StatusReport read(RelayEngine engine, RelayHealth health, StatusSampler sampler, Duration uptime) {
    RelayEngineStats s = engine.stats();
    TopologySnapshot topology = engine.readiness();
    List<Pool> pools = new ArrayList<>();
    for (PoolStats p : s.pools()) {
      pools.add(pool(p, sampler));
    }
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
    HubRegistryStats h = s.hubs();
    Map<String, Long> errors = new LinkedHashMap<>();
    errors.put("poolStartFailures", s.poolStartFailures());
    errors.put("fencedRetirements", s.fencedRetirements());
    errors.put("sourceFaults", s.sourceFaults());
    errors.put("rejectedSources", s.rejectedSources());
    errors.put("hubFaults", s.hubFaults());
    errors.put("discoveryErrors", s.discoveryErrors());
    errors.put("discoveryDecodeErrors", s.discoveryDecodeErrors());
    errors.put("eventDecodeErrors", s.eventDecodeErrors());
    errors.put("loadRejected", s.loadRejected());
    errors.put("unexpectedMessages", s.unexpectedMessages());
    errors.put("channelErrors", s.channelErrors());
    errors.put("faultQueueOverflows", s.faultQueueOverflows());
    errors.put("loadPublishErrors", s.loadPublishErrors());
    errors.put("hubInitFailures", h.initFailures());
    return new StatusReport(engine.config().dcName(), engine.config().dcId().hex(), s.identity().drtInstanceId(),
        s.identity().relayIncarnation(), uptime, health.healthy(), s.catalogRevision(), s.topologyRevision(),
        s.streams().pool().subscribers(), s.streams().pool().lagged(), pools, readiness, errors,
        health.sources().lastError());
  }

  private static Pool pool(PoolStats p, StatusSampler sampler) {
    KvPoolDescriptor d = p.descriptor();
    String endpoint = d.servingEndpoint().dottedName();
    int buckets = d.producer().ckfFormat().bucketCount();
    long slots = buckets * (long) d.producer().ckfFormat().slotsPerBucket();
    PoolActorStats a = p.actor();
    RecoveryStats r = p.recovery();
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
    recovery.put("stale", r.stale());
    recovery.put("discarded", r.discarded());
    recovery.put("suspectSources", r.suspectSources());
    LoadCounters l = p.load();
    Map<String, Long> load = new LinkedHashMap<>();
    load.put("applied", l.applied());
    load.put("stale", l.stale());
    load.put("gaps", l.gaps());
    load.put("unknownRank", l.unknownRank());
    load.put("discardedAboveCapacity", l.discardedAboveCapacity());
    load.put("invalidRefreshes", l.invalidRefreshes());
    StatusSampler.History history = sampler.history(endpoint);
    return new Pool(endpoint, a == null ? "UNKNOWN" : a.state().name(), d.producer().producerIncarnation(),
        d.producer().layoutGeneration(), buckets, slots, a == null ? 0 : a.producer().occupiedSlots(),
        a == null ? 0 : a.producer().residentCount(), a == null ? 0 : a.capacityOmissions(),
        a == null ? 0 : a.producer().lastSequence(), a == null ? 0 : a.appliedEvents(),
        history.lastEventsPerSecond(), history.lastSequencePerSecond(), a == null ? 0 : a.publishedDeltas(),
        a == null ? 0 : a.publishedSnapshots(), recovery, load, history);
  }

  private static List<String> roles(List<WorkerRole> roles) {
    return roles.stream().map(WorkerRole::text).toList();
  }
}
