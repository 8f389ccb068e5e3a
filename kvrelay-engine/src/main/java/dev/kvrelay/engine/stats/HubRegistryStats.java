package dev.kvrelay.engine.stats;

import java.util.List;

/**
 * Immutable and thread-safe: a point-in-time copy of the hub registry's counters. Every refusal, lag,
 * timeout, eviction, resnapshot and fault is counted here (nothing is dropped silently).
 *
 * @param initializedHubs hubs holding an init permit now (Initializing or Ready)
 * @param openStreams streams currently subscribed to a hub
 * @param subscribersAdmitted streams opened since start
 * @param refusedPoolNotFound subscribes refused POOL_NOT_FOUND
 * @param refusedProducerChanged subscribes refused PRODUCER_CHANGED
 * @param refusedResourceLimit subscribes refused RESOURCE_LIMIT (initialized-hub cap or per-pool cap)
 * @param refusedUnavailable subscribes refused PUBLICATION_UNAVAILABLE (retired, failed, replaced, init failed)
 * @param lagged streams ended SUBSCRIBER_LAGGED
 * @param progressTimeouts streams ended SNAPSHOT_PROGRESS_TIMEOUT
 * @param evictions idle hubs evicted to serve another pool
 * @param resnapshots hub re-bases (oversized tail snapshot, oversized delta, lag before init) that closed streams
 * @param streamsRetired streams ended PUBLICATION_UNAVAILABLE by retirement or resnapshot
 * @param deltasEncoded deltas encoded (once each, shared by all subscribers)
 * @param idleDeltasApplied deltas applied to a mirror without subscribers (not encoded)
 * @param foreignPublications publications of another lease ignored
 * @param framesDelivered frames taken by consumers (chunks, deltas, heartbeats)
 * @param bytesDelivered payload bytes taken by consumers
 * @param heartbeats heartbeat frames taken
 * @param faults terminal hub faults reported to the fault listener
 * @param initFailures lazy inits whose actor subscribe failed
 * @param encoderCancellations snapshot bootstraps whose encoder was cancelled (stream ended PUBLICATION_UNAVAILABLE,
 *     no fence)
 * @param requestedHubs hubs a subscriber asked for that are initializing or ready now (wan-grpc §8
 *     {@code requested_publication_hub_count})
 * @param readyHubs hubs holding a contiguous mirror now ({@code ready_publication_hub_count})
 * @param idleHubs ready hubs with no subscriber now ({@code idle_publication_hub_count})
 * @param refusedInitializedHubLimit the part of {@code refusedResourceLimit} refused by the initialized-hub cap
 *     (the rest was refused by the subscribers-per-pool cap)
 * @param subscribers every pool stream subscribed now with its lag ({@link SubscriberLagStats}), by pool then
 *     subscriber id
 */
public record HubRegistryStats(
    int initializedHubs,
    long openStreams,
    long subscribersAdmitted,
    long refusedPoolNotFound,
    long refusedProducerChanged,
    long refusedResourceLimit,
    long refusedUnavailable,
    long lagged,
    long progressTimeouts,
    long evictions,
    long resnapshots,
    long streamsRetired,
    long deltasEncoded,
    long idleDeltasApplied,
    long foreignPublications,
    long framesDelivered,
    long bytesDelivered,
    long heartbeats,
    long faults,
    long initFailures,
    long encoderCancellations,
    int requestedHubs,
    int readyHubs,
    int idleHubs,
    long refusedInitializedHubLimit,
    List<SubscriberLagStats> subscribers) {

  /** Copies the subscriber list. */
  public HubRegistryStats {
    subscribers = List.copyOf(subscribers);
  }
}
