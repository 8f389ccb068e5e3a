package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Immutable and thread-safe: the KV-source membership of one serving endpoint ({@code producer.md} §2.4):
 * the resolved kv-state endpoint and the status of every expected {@code (kv_state_endpoint, worker,
 * dp_rank)}, computed from the runtime configs it was given and the current advertisements.
 *
 * @param servingEndpoint the serving endpoint
 * @param runtimeConfigs the runtime configs the view reflects (worker → config, unsigned order)
 * @param kvState the resolved kv-state endpoint
 * @param statuses every expected source → status; ranks {@code start .. start + size - 1} per worker
 */
public record KvSourceView(
    DynamoEndpointId servingEndpoint,
    SortedMap<Long, RuntimeConfig> runtimeConfigs,
    KvStateResolution kvState,
    SortedMap<KvSourceKey, KvSourceStatus> statuses) {

  /** Copies the maps (unmodifiable). */
  public KvSourceView {
    runtimeConfigs = AdapterMembership.unsignedCopy(runtimeConfigs);
    statuses = Collections.unmodifiableSortedMap(new TreeMap<>(statuses));
  }

  /** The view of a membership's runtime configs. */
  public static KvSourceView of(EndpointMembership membership, KvSourceAdvertisements advertisements) {
    return of(membership.endpoint(), membership.runtimeConfigs(), advertisements);
  }

  /** The view of {@code runtimeConfigs} of {@code servingEndpoint}. */
  public static KvSourceView of(
      DynamoEndpointId servingEndpoint, Map<Long, RuntimeConfig> runtimeConfigs, KvSourceAdvertisements advertisements) {
    KvStateResolution kvState = resolve(servingEndpoint, runtimeConfigs);
    TreeMap<KvSourceKey, KvSourceStatus> statuses = new TreeMap<>();
    for (Map.Entry<Long, RuntimeConfig> e : runtimeConfigs.entrySet()) {
      RuntimeConfig config = e.getValue();
      DynamoEndpointId kvEndpoint = config.effectiveKvStateEndpoint(servingEndpoint);
      for (long rank = config.dataParallelStartRank(); rank <= config.lastRank(); rank++) {
        KvSourceKey key = new KvSourceKey(kvEndpoint, e.getKey(), rank);
        statuses.put(key, kvState instanceof KvStateResolution.Ambiguous
            ? new KvSourceStatus.Ambiguous(KvSourceStatus.AmbiguityReason.ENDPOINT_MAPPING)
            : advertisements.statusOf(key));
      }
    }
    return new KvSourceView(servingEndpoint, AdapterMembership.unsignedCopy(runtimeConfigs), kvState, statuses);
  }

  /** {@code effective_kv_state_endpoint} over all configs: none → serving endpoint; one distinct → it. */
  static KvStateResolution resolve(DynamoEndpointId servingEndpoint, Map<Long, RuntimeConfig> runtimeConfigs) {
    TreeSet<DynamoEndpointId> distinct = new TreeSet<>();
    for (RuntimeConfig config : runtimeConfigs.values()) {
      distinct.add(config.effectiveKvStateEndpoint(servingEndpoint));
    }
    if (distinct.isEmpty()) {
      return new KvStateResolution.Resolved(servingEndpoint);
    }
    return distinct.size() == 1
        ? new KvStateResolution.Resolved(distinct.first())
        : new KvStateResolution.Ambiguous(distinct);
  }

  /** True if at least one expected source is active ({@code ActiveRecoverable} or {@code ActiveLiveOnly}). */
  public boolean hasActiveSource() {
    for (KvSourceStatus s : statuses.values()) {
      if (s.isActive()) {
        return true;
      }
    }
    return false;
  }

  /** The expected sources whose status is {@code ActiveRecoverable}: the recovery "initial wave". */
  public SortedSet<KvSourceKey> recoverableSources() {
    TreeSet<KvSourceKey> out = new TreeSet<>();
    for (Map.Entry<KvSourceKey, KvSourceStatus> e : statuses.entrySet()) {
      if (e.getValue() instanceof KvSourceStatus.ActiveRecoverable) {
        out.add(e.getKey());
      }
    }
    return Collections.unmodifiableSortedSet(out);
  }

  /**
   * {@code source_binding_pending}: true if this view does not reflect {@code membership}'s endpoint and
   * runtime configs (a start is deferred until it does).
   */
  public boolean isPendingFor(EndpointMembership membership) {
    return !servingEndpoint.equals(membership.endpoint()) || !runtimeConfigs.equals(membership.runtimeConfigs());
  }
}
