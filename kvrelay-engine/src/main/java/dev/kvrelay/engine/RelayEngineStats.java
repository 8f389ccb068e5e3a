package dev.kvrelay.engine;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.stats.EventPlaneFaultKind;
import dev.kvrelay.engine.stats.HubRegistryStats;
import dev.kvrelay.engine.stats.WanStreamStats;
import java.util.List;
import java.util.Map;

/**
 * Immutable and thread-safe: a diagnostic read of every counter of a running engine. Nothing the engine drops,
 * rejects or omits goes uncounted: look here (and in each pool's {@link PoolStats}).
 *
 * @param identity the relay identity
 * @param catalogRevision the published catalog revision
 * @param topologyRevision the published readiness revision
 * @param pools per active pool generation, in no particular order
 * @param hubs publication hub counters
 * @param reconciles membership reconciliations run
 * @param poolStarts pool generations started
 * @param poolStartFailures pool starts that failed (retried with backoff)
 * @param gracefulRetirements generations withdrawn gracefully
 * @param fencedRetirements generations withdrawn fenced
 * @param sourceFaults faults reported by pool actors
 * @param rejectedSources faults whose disposition rejects the source
 * @param hubFaults terminal hub failures (each fences its generation)
 * @param discoveryErrors discovery watch interruptions and errors
 * @param discoveryDecodeErrors malformed discovery entries skipped
 * @param eventDecodeErrors event-plane messages that failed to decode
 * @param loadObservations load reports received
 * @param loadRejected load reports not applied (stale, advisory, unknown rank, above capacity)
 * @param unexpectedMessages messages of the wrong kind on a subscription
 * @param channelErrors event channels the plane refused to connect to (channel-connecting planes)
 * @param faultQueueOverflows pool generations fenced because more than 16 sources had pending faults
 * @param loadPublishErrors load publisher failures (the first stops the load ticker and terminates the relay)
 * @param streams per-WAN-stream-type subscriber gauges, lag and admission refusals (wan-grpc §8)
 * @param eventPlaneFaults event-plane faults of every subscription (kv-events and kv_metrics), by kind
 */
public record RelayEngineStats(
    RelayIdentity identity,
    long catalogRevision,
    long topologyRevision,
    List<PoolStats> pools,
    HubRegistryStats hubs,
    long reconciles,
    long poolStarts,
    long poolStartFailures,
    long gracefulRetirements,
    long fencedRetirements,
    long sourceFaults,
    long rejectedSources,
    long hubFaults,
    long discoveryErrors,
    long discoveryDecodeErrors,
    long eventDecodeErrors,
    long loadObservations,
    long loadRejected,
    long unexpectedMessages,
    long channelErrors,
    long faultQueueOverflows,
    long loadPublishErrors,
    WanStreamStats streams,
    Map<EventPlaneFaultKind, Long> eventPlaneFaults) {

  /** Copies the pool list and the fault map. */
  public RelayEngineStats {
    pools = List.copyOf(pools);
    eventPlaneFaults = Map.copyOf(eventPlaneFaults);
  }

  /** Event-plane faults of {@code kind}. */
  public long eventPlaneFaults(EventPlaneFaultKind kind) {
    return eventPlaneFaults.getOrDefault(kind, 0L);
  }
}
