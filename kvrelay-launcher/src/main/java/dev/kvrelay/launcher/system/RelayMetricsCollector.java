package dev.kvrelay.launcher.system;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.stats.PoolStats.QueryFailureKind;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Thread-safe (stateless between scrapes): the relay's Prometheus metrics, sampled from one
 * {@link RelayEngine#stats()} read per scrape (plugins-wire §4: "gauges are sampled … at scrape time"). Upstream's
 * series carry {@code dynamo_component_} names and the {@code dynamo_namespace} / {@code dynamo_component} labels;
 * kvrelay's own series, which upstream lacks, are named {@code kvrelay_*} and carry the same two labels.
 */
final class RelayMetricsCollector implements MultiCollector {
  /** Upstream's exported prefix: {@code dynamo_component_} + {@code kv_dc_relay_}. */
  static final String UPSTREAM = "dynamo_component_kv_dc_relay_";
  /** kvrelay's own series. */
  static final String OWN = "kvrelay_";
  /** The relay's Dynamo component (its runtime endpoint is {@code <ns>.kv_dc_relay.control}, producer §7.5). */
  static final String COMPONENT = "kv_dc_relay";

  private final RelayEngine engine;
  private final String namespace;

  RelayMetricsCollector(RelayEngine engine, String namespace) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
  }

  @Override
  public MetricSnapshots collect() {
    RelayEngineStats s = engine.stats();
    Families f = new Families(namespace);
    upstream(f, s);
    own(f, s);
    return f.snapshots();
  }

  /** wan-grpc §8 / plugins-wire §4, without the TLS-era expiry gauge (the spec's decision). */
  private void upstream(Families f, RelayEngineStats s) {
    RelayEngineStats.Streams w = s.streams();
    RelayEngineStats.Hubs h = s.hubs();
    Map<String, RelayEngineStats.Stream> streams = new LinkedHashMap<>();
    streams.put("catalog", w.catalog());
    streams.put("pool", w.pool());
    streams.put("readiness", w.readiness());
    streams.put("load", w.load());
    streams.put("serving_load", w.servingLoad());
    for (Map.Entry<String, RelayEngineStats.Stream> e : streams.entrySet()) {
      f.gauge(UPSTREAM + "subscribers", "Current subscribers per WAN stream type", e.getValue().subscribers(),
          "stream", e.getKey());
      f.counter(UPSTREAM + "subscriber_lagged", "Streams ended for subscriber lag", e.getValue().lagged(),
          "stream", e.getKey());
      f.counter(UPSTREAM + "subscriber_limit_rejected", "Subscribes refused by an admission limit",
          e.getValue().limitRejected(), "stream", e.getKey(), "scope", "total");
    }
    long initializedHubRefusals = h.refusedInitializedHubLimit();
    f.counter(UPSTREAM + "subscriber_limit_rejected", "", h.refusedResourceLimit() - initializedHubRefusals,
        "stream", "pool", "scope", "per_pool");
    f.counter(UPSTREAM + "subscriber_limit_rejected", "", initializedHubRefusals,
        "stream", "pool", "scope", "initialized_hub");
    f.counter(UPSTREAM + "pool_heartbeats", "Pool stream heartbeats sent", h.heartbeats());
    f.counter(UPSTREAM + "load_updates", "Pool load windows sent", w.loadUpdates());
    f.gauge(UPSTREAM + "catalog_pool_count", "Pools in the catalog", engine.catalog().pools().size());
    f.gauge(UPSTREAM + "requested_publication_hub_count", "Pools whose publication hub was requested",
        h.requestedHubs());
    f.gauge(UPSTREAM + "initialized_publication_hub_count", "Publication hubs holding a mirror",
        h.initializedHubs());
    f.gauge(UPSTREAM + "ready_publication_hub_count", "Publication hubs with a contiguous mirror", h.readyHubs());
    f.gauge(UPSTREAM + "idle_publication_hub_count", "Ready publication hubs without subscribers", h.idleHubs());
    f.counter(UPSTREAM + "terminal_publication_failures", "Terminal publication failures (fenced generations)",
        s.hubFaults());
    f.gauge(UPSTREAM + "degraded_load_coverage_pool_count",
        "Pools with fewer observed than expected ranks or unknown capacity", w.degradedLoadCoveragePools());
    TopologySnapshot topology = engine.readiness();
    Map<ServingReadinessState, Integer> byState = new LinkedHashMap<>();
    for (ServingReadinessState state : ServingReadinessState.values()) {
      byState.put(state, 0);
    }
    for (TopologyEntry entry : topology.entries()) {
      byState.merge(entry.state(), 1, Integer::sum);
    }
    for (Map.Entry<ServingReadinessState, Integer> e : byState.entrySet()) {
      f.gauge(UPSTREAM + "serving_topology_count", "Serving topology entries by state", e.getValue(),
          "state", e.getKey().name().toLowerCase(Locale.ROOT));
    }
  }

  /**
   * Replica lag per pool subscriber (issue 12): frames queued and sequences not yet taken, keyed by the pool's
   * serving endpoint and the subscriber id (two streams opened with one id on one pool are summed, so no label
   * set repeats).
   */
  private static void subscriberLag(Families f, RelayEngineStats s) {
    Map<KvPoolId, String> endpoints = new LinkedHashMap<>();
    for (PoolStats pool : s.pools()) {
      endpoints.put(pool.descriptor().poolId(), pool.descriptor().servingEndpoint().dottedName());
    }
    Map<List<String>, long[]> lag = new LinkedHashMap<>();
    for (RelayEngineStats.SubscriberLag l : s.hubs().subscribers()) {
      String p = endpoints.getOrDefault(l.pool(), l.pool().toString());
      long[] v = lag.computeIfAbsent(List.of(p, l.subscriberId()), k -> new long[2]);
      v[0] += l.queuedFrames();
      v[1] += l.sequenceLag();
    }
    for (Map.Entry<List<String>, long[]> e : lag.entrySet()) {
      String p = e.getKey().get(0);
      String sub = e.getKey().get(1);
      f.gaugeU64(OWN + "subscriber_replica_lag_frames", "Pool frames queued for a subscriber and not yet taken",
          e.getValue()[0], "pool", p, "subscriber", sub);
      f.gaugeU64(OWN + "subscriber_replica_lag_sequences", "Deltas published to a subscriber and not yet taken",
          e.getValue()[1], "pool", p, "subscriber", sub);
    }
  }

  /** kvrelay's own counters: every drop, rejection, omission and reset, per pool. */
  private static void own(Families f, RelayEngineStats s) {
    f.counter(OWN + "pool_starts", "Pool generations started", s.poolStarts());
    f.counter(OWN + "pool_start_failures", "Pool starts that failed (retried with backoff)", s.poolStartFailures());
    f.counter(OWN + "pool_retirements", "Pool generations withdrawn", s.gracefulRetirements(), "kind", "graceful");
    f.counter(OWN + "pool_retirements", "", s.fencedRetirements(), "kind", "fenced");
    f.counter(OWN + "source_faults", "Faults reported by pool actors", s.sourceFaults());
    f.counter(OWN + "rejected_sources", "Faults whose disposition rejects the source", s.rejectedSources());
    f.counter(OWN + "discovery_errors", "Discovery watch errors and malformed entries", s.discoveryErrors(),
        "kind", "watch");
    f.counter(OWN + "discovery_errors", "", s.discoveryDecodeErrors(), "kind", "decode");
    f.counter(OWN + "event_decode_errors", "Event-plane messages that failed to decode", s.eventDecodeErrors());
    f.counter(OWN + "unexpected_messages", "Messages of the wrong kind on a subscription", s.unexpectedMessages());
    f.counter(OWN + "channel_errors", "Event channels the plane refused to connect to", s.channelErrors());
    f.counter(OWN + "fault_queue_overflows", "Generations fenced for too many pending source faults",
        s.faultQueueOverflows());
    f.counter(OWN + "load_reports", "Load reports received", s.loadObservations(), "outcome", "observed");
    f.counter(OWN + "load_reports", "", s.loadRejected(), "outcome", "rejected");
    f.counter(OWN + "load_publish_errors", "Load window publisher failures", s.loadPublishErrors());
    f.counter(OWN + "serving_load_updates", "Serving load windows sent", s.streams().servingLoadUpdates());
    RelayEngineStats.Hubs h = s.hubs();
    f.counter(OWN + "hub_refusals", "Pool subscribes refused by the hubs", h.refusedPoolNotFound(),
        "reason", "pool_not_found");
    f.counter(OWN + "hub_refusals", "", h.refusedProducerChanged(), "reason", "producer_changed");
    f.counter(OWN + "hub_refusals", "", h.refusedResourceLimit(), "reason", "resource_limit");
    f.counter(OWN + "hub_refusals", "", h.refusedUnavailable(), "reason", "publication_unavailable");
    f.counter(OWN + "hub_stream_ends", "Pool streams ended by the hub", h.lagged(), "reason", "lagged");
    f.counter(OWN + "hub_stream_ends", "", h.progressTimeouts(), "reason", "snapshot_progress_timeout");
    f.counter(OWN + "hub_stream_ends", "", h.streamsRetired(), "reason", "retired");
    f.counter(OWN + "hub_evictions", "Idle hubs evicted to serve another pool", h.evictions());
    f.counter(OWN + "hub_resnapshots", "Hub re-bases that closed streams", h.resnapshots());
    f.counter(OWN + "hub_frames_delivered", "Pool frames taken by consumers", h.framesDelivered());
    f.counter(OWN + "hub_bytes_delivered", "Pool frame payload bytes taken by consumers", h.bytesDelivered());
    subscriberLag(f, s);
    for (PoolStats pool : s.pools()) {
      String p = pool.descriptor().servingEndpoint().dottedName();
      PoolStats.Actor a = pool.actor();
      if (a != null) {
        f.counter(OWN + "pool_events", "Events a pool actor received, by outcome", a.appliedEvents(),
            "pool", p, "outcome", "applied");
        f.counter(OWN + "pool_events", "", a.ignoredNonPrimary(), "pool", p, "outcome", "ignored_non_primary");
        f.counter(OWN + "pool_events", "", a.unsupportedResidency(), "pool", p, "outcome", "unsupported_residency");
        f.counter(OWN + "pool_events", "", a.ignoredWhileClosed(), "pool", p, "outcome", "ignored_while_closed");
        f.counter(OWN + "pool_submissions_rejected", "Pool actor submissions rejected", a.mailboxFull(),
            "pool", p, "reason", "mailbox_full");
        f.counter(OWN + "pool_submissions_rejected", "", a.permitsExhausted(), "pool", p, "reason",
            "permits_exhausted");
        f.counter(OWN + "pool_submissions_rejected", "", a.closedRejections(), "pool", p, "reason", "closed");
        f.counter(OWN + "pool_capacity_omissions", "CKF inserts that found no room", a.capacityOmissions(),
            "pool", p);
        f.counter(OWN + "pool_events_rejected", "Stored/removed events the producer rejected",
            a.producer().parentNotFound(), "pool", p, "reason", "parent_not_found");
        f.counter(OWN + "pool_events_rejected", "", a.producer().invalidBlockSequence(), "pool", p, "reason",
            "invalid_block_sequence");
        f.counter(OWN + "pool_events_rejected", "", a.producer().ownershipOverflows(), "pool", p, "reason",
            "ownership_overflow");
        f.counter(OWN + "pool_events_rejected", "", a.producer().unknownRemovals(), "pool", p, "reason",
            "unknown_removal");
        long slots = pool.descriptor().producer().ckfFormat().bucketCount()
            * (long) pool.descriptor().producer().ckfFormat().slotsPerBucket();
        f.gaugeU64(OWN + "pool_ckf_occupied_slots", "Non-empty CKF slots", a.producer().occupiedSlots(), "pool", p);
        f.gaugeU64(OWN + "pool_ckf_slots", "CKF slots in total", slots, "pool", p);
        f.gauge(OWN + "pool_ckf_fill_ratio", "Occupied over total CKF slots",
            slots == 0 ? 0 : (double) a.producer().occupiedSlots() / slots, "pool", p);
        f.gaugeU64(OWN + "pool_resident_hashes", "Canonical hashes resident in the table",
            a.producer().residentCount(), "pool", p);
        f.gaugeU64(OWN + "pool_published_sequence", "Last published CBI1 sequence",
            a.producer().lastSequence(), "pool", p);
      }
      PoolStats.Recovery r = pool.recovery();
      f.counter(OWN + "pool_ingest_dropped", "Live events dropped before the pool actor, by reason",
          r.bufferOverflows(), "pool", p, "reason", "buffer_overflow");
      f.counter(OWN + "pool_ingest_dropped", "", r.inboxOverflows(), "pool", p, "reason", "inbox_overflow");
      f.counter(OWN + "pool_ingest_dropped", "", r.stale(), "pool", p, "reason", "stale");
      f.counter(OWN + "pool_ingest_dropped", "", r.unknownPublisher(), "pool", p, "reason", "unknown_publisher");
      f.counter(OWN + "pool_ingest_dropped", "", r.memberMismatch(), "pool", p, "reason", "member_mismatch");
      f.counter(OWN + "pool_ingest_dropped", "", r.rejectedSourceEvents(), "pool", p, "reason", "rejected_source");
      f.counter(OWN + "pool_ingest_dropped", "", r.discarded(), "pool", p, "reason", "discarded_by_reset");
      f.counter(OWN + "pool_ingested", "Live or recovered events handed to the pool actor", r.applied(), "pool", p);
      f.counter(OWN + "pool_gaps", "Sequence gaps that started a recovery", r.gaps(), "pool", p);
      f.counter(OWN + "pool_backpressure_waits", "Delivery-thread waits for room in the pool's full inbox",
          r.backpressureWaits(), "pool", p);
      f.counter(OWN + "pool_recovery_task_failures", "Steps of the pool recovery's task that threw (logged at ERROR)",
          r.taskFailures(), "pool", p);
      f.counter(OWN + "pool_recovery_attempts", "Recovery queries, by outcome", r.replacements(),
          "pool", p, "outcome", "replaced");
      for (QueryFailureKind kind : QueryFailureKind.values()) {
        f.counter(OWN + "pool_recovery_attempts", "", r.queryFailures(kind), "pool", p, "outcome",
            kind.name().toLowerCase(Locale.ROOT));
      }
      f.counter(OWN + "pool_recovery_queries", "Recovery queries sent", r.queries(), "pool", p);
      f.counter(OWN + "pool_recovery_retries", "Recovery attempts scheduled after a failure", r.retries(),
          "pool", p);
      f.counter(OWN + "pool_recovery_resets", "Rank resets, by cause", r.lifecycleResets(), "pool", p,
          "outcome", "lifecycle");
      f.counter(OWN + "pool_recovery_resets", "", r.liveOnlyResets(), "pool", p, "outcome", "live_only");
      f.counter(OWN + "pool_recovery_resets", "", r.degradedResets(), "pool", p, "outcome", "degraded");
      f.counter(OWN + "pool_recovery_resets", "", r.resyncs(), "pool", p, "outcome", "resync");
      f.counter(OWN + "pool_recovery_exhausted", "Recoveries abandoned after the last retry", r.exhausted(),
          "pool", p);
    }
  }

  /** Not thread-safe: confined to one scrape; collects data points per family, in first-use order. */
  private static final class Families {
    private final String namespace;
    private final Map<String, GaugeSnapshot.Builder> gauges = new LinkedHashMap<>();
    private final Map<String, CounterSnapshot.Builder> counters = new LinkedHashMap<>();
    private final List<String> order = new ArrayList<>();

    Families(String namespace) {
      this.namespace = namespace;
    }

    private Labels labels(String... pairs) {
      String[] all = new String[pairs.length + 4];
      all[0] = "dynamo_namespace";
      all[1] = namespace;
      all[2] = "dynamo_component";
      all[3] = COMPONENT;
      System.arraycopy(pairs, 0, all, 4, pairs.length);
      return Labels.of(all);
    }

    void gauge(String name, String help, double value, String... labels) {
      GaugeSnapshot.Builder b = gauges.computeIfAbsent(name, n -> {
        order.add(n);
        return GaugeSnapshot.builder().name(n).help(help);
      });
      b.dataPoint(GaugeDataPointSnapshot.builder().labels(labels(labels)).value(value).build());
    }

    /** A gauge of an unsigned 64-bit count or sequence held in a {@code long}. */
    void gaugeU64(String name, String help, long value, String... labels) {
      gauge(name, help, value >= 0 ? (double) value : value + 0x1p64, labels);
    }

    /** {@code name} without {@code _total}: the text format appends it. Values are u64 counts, never negative. */
    void counter(String name, String help, long value, String... labels) {
      CounterSnapshot.Builder b = counters.computeIfAbsent(name, n -> {
        order.add(n);
        return CounterSnapshot.builder().name(n).help(help);
      });
      double v = value >= 0 ? value : value + 0x1p64;
      b.dataPoint(CounterDataPointSnapshot.builder().labels(labels(labels)).value(v).build());
    }

    MetricSnapshots snapshots() {
      List<MetricSnapshot> out = new ArrayList<>();
      for (String n : order) {
        GaugeSnapshot.Builder g = gauges.get(n);
        if (g != null) {
          out.add(g.build());
          continue;
        }
        CounterSnapshot.Builder c = counters.get(n);
        if (c == null) {
          throw new IllegalStateException("metric family " + n + " is neither a gauge nor a counter");
        }
        out.add(c.build());
      }
      return new MetricSnapshots(out);
    }
  }
}
