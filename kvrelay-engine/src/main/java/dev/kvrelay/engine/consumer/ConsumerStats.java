package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayErrorReason;
import java.util.Map;

/**
 * Immutable and thread-safe: the counters of a {@link RelayConsumer} at one moment; nothing the consumer drops,
 * refuses or retries goes uncounted.
 *
 * @param subscriptions pool subscriptions opened (first and re-subscriptions)
 * @param resubscriptions pool subscriptions re-opened after a backoff
 * @param framesApplied frames accepted by a replica (chunks, deltas, heartbeats)
 * @param invalidations replica invalidations by the replica's reason (EOF and staleness included)
 * @param poolStreamErrors pool subscriptions or streams that ended with a relay error, by reason
 * @param catalogRejections catalog updates rejected by the catalog view, by reason
 * @param watchErrors readiness and load streams that failed or broke their ordering rule
 * @param reconnects whole-source resets (catalog failure, relay identity change, revision errors)
 * @param sourcesStopped sources stopped for good (contract mismatch, invalid request)
 * @param quarantinedDescriptors catalog descriptors quarantined (per applied revision)
 * @param refusedLanes pools of the domain the global view refused (full, duplicate dc, other format or semantics)
 * @param staleCallbacks completions and timers that arrived for a superseded subscription and were ignored
 * @param drainFailures exceptions thrown while draining a stream on the consumer task (pool frames, catalog,
 *     readiness or load messages), and exceptions of the consumer's other tasks when it runs on a caller's
 *     executor; each logged at ERROR; the drain survives and drains again on the next message
 */
public record ConsumerStats(
    long subscriptions,
    long resubscriptions,
    long framesApplied,
    Map<ReplicaTermination, Long> invalidations,
    Map<RelayErrorReason, Long> poolStreamErrors,
    Map<CatalogError, Long> catalogRejections,
    long watchErrors,
    long reconnects,
    long sourcesStopped,
    long quarantinedDescriptors,
    long refusedLanes,
    long staleCallbacks,
    long drainFailures) {

  /** Copies the maps. */
  public ConsumerStats {
    invalidations = Map.copyOf(invalidations);
    poolStreamErrors = Map.copyOf(poolStreamErrors);
    catalogRejections = Map.copyOf(catalogRejections);
  }

  /** The invalidations with {@code reason} (0 if none). */
  public long invalidations(ReplicaTermination reason) {
    return invalidations.getOrDefault(reason, 0L);
  }

  /** The pool stream errors with {@code reason} (0 if none). */
  public long poolStreamErrors(RelayErrorReason reason) {
    return poolStreamErrors.getOrDefault(reason, 0L);
  }
}
