package dev.kvrelay.engine.stats;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
    Hubs hubs,
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
    Streams streams,
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
   * @param subscribers every pool stream subscribed now with its lag ({@link SubscriberLag}), by pool then
   *     subscriber id
   */
  public record Hubs(
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
      List<SubscriberLag> subscribers) {

    /** Copies the subscriber list. */
    public Hubs {
      subscribers = List.copyOf(subscribers);
    }
  }

  /**
   * Immutable and thread-safe: how far one pool-stream subscriber is behind its publication hub at one read (issue 12
   * "replica lag per subscriber"). Read without the stream's lock from values the stream publishes as it queues and
   * hands out frames, so the fields are each exact but not necessarily from the same instant.
   *
   * @param subscriberId the subscriber id the stream was opened with
   * @param stream the WAN stream type ({@code pool})
   * @param pool the pool the stream follows
   * @param queuedFrames delta frames queued for the subscriber and not yet taken
   * @param queuedBytes their cost against the queue's byte budget (payload + 256 per frame)
   * @param publishedSequence the wire sequence of the newest frame queued for the subscriber (its snapshot's sequence
   *     before the first delta), unsigned
   * @param deliveredSequence the wire sequence of the last frame handed to the subscriber (the snapshot's sequence
   *     until its first delta), unsigned
   * @param sequenceLag {@code publishedSequence − deliveredSequence}: deltas published but not yet taken
   * @param pendingSnapshotChunks snapshot chunks not yet taken (0 once the bootstrap is done)
   * @param connectedSinceMicros when the stream was opened, µs since the epoch (the hub's wall clock)
   */
  public record SubscriberLag(
      String subscriberId,
      String stream,
      KvPoolId pool,
      int queuedFrames,
      long queuedBytes,
      long publishedSequence,
      long deliveredSequence,
      long sequenceLag,
      int pendingSnapshotChunks,
      long connectedSinceMicros) {

    /** Requires the names. */
    public SubscriberLag {
      Objects.requireNonNull(subscriberId, "subscriberId");
      Objects.requireNonNull(stream, "stream");
      Objects.requireNonNull(pool, "pool");
    }
  }

  /**
   * Immutable and thread-safe: the per-stream-type WAN counters of one engine (wan-grpc §8), read by the system
   * server's metrics at scrape time.
   *
   * @param catalog WatchKvPoolCatalog streams
   * @param pool SubscribeKvPool streams (lag and the per-pool and initialized-hub refusals are in
   *     {@link Hubs})
   * @param readiness SubscribeServingReadiness streams
   * @param load SubscribeKvPoolLoad streams
   * @param servingLoad SubscribeServingLoad streams
   * @param loadUpdates pool-load windows published after the startup window ({@code kv_dc_relay_load_updates_total})
   * @param servingLoadUpdates serving-load windows published after the startup window
   * @param degradedLoadCoveragePools pools of the current load window with fewer observed than expected ranks, or
   *     with unknown capacity ({@code kv_dc_relay_degraded_load_coverage_pool_count})
   */
  public record Streams(
      Stream catalog,
      Stream pool,
      Stream readiness,
      Stream load,
      Stream servingLoad,
      long loadUpdates,
      long servingLoadUpdates,
      int degradedLoadCoveragePools) {

    /** Requires every stream's stats. */
    public Streams {
      Objects.requireNonNull(catalog, "catalog");
      Objects.requireNonNull(pool, "pool");
      Objects.requireNonNull(readiness, "readiness");
      Objects.requireNonNull(load, "load");
      Objects.requireNonNull(servingLoad, "servingLoad");
    }
  }

  /**
   * Immutable and thread-safe: the gauges and counters of one WAN stream type (wan-grpc §8
   * {@code kv_dc_relay_subscribers}, {@code _subscriber_lagged_total}, {@code _subscriber_limit_rejected_total}
   * with {@code scope="total"}).
   *
   * @param subscribers streams of this type open now (admission permits held)
   * @param lagged streams of this type ended SUBSCRIBER_LAGGED so far (0 for latest-value streams, which never lag)
   * @param limitRejected subscribes refused by this type's relay-wide admission limit so far
   */
  public record Stream(int subscribers, long lagged, long limitRejected) {}

  /**
   * Immutable and thread-safe: the kind of one event-plane fault the engine received through {@code
   * EventListener.onFault} (counted in {@link PoolStats.Recovery#planeFaults()} per pool and in the engine's stats).
   */
  public enum EventPlaneFaultKind {
    /** The transport lost its connection; the pool's sources become suspect. */
    DISCONNECTED,
    /** The transport is connected again; every source of the subscription recovers. */
    RECONNECTED,
    /** The transport discarded messages of unknown publishers; every source of the subscription recovers. */
    MESSAGES_DROPPED,
    /** The first message of a publisher id on the subscription. */
    NEW_PUBLISHER,
    /** A publisher's sequence skipped ahead; its source recovers incrementally. */
    SEQUENCE_GAP,
    /** A publisher's sequence went back; its source restores in full. */
    SEQUENCE_REGRESSION;

    /** The kind of {@code fault}. */
    public static EventPlaneFaultKind of(EventPlaneFault fault) {
      if (fault instanceof EventPlaneFault.Disconnected) {
        return DISCONNECTED;
      } else if (fault instanceof EventPlaneFault.Reconnected) {
        return RECONNECTED;
      } else if (fault instanceof EventPlaneFault.MessagesDropped) {
        return MESSAGES_DROPPED;
      } else if (fault instanceof EventPlaneFault.NewPublisher) {
        return NEW_PUBLISHER;
      } else if (fault instanceof EventPlaneFault.SequenceGap) {
        return SEQUENCE_GAP;
      }
      return SEQUENCE_REGRESSION;
    }
  }
}
