package dev.kvrelay.engine.stats;

import java.util.List;
import java.util.Map;

/**
 * Immutable and thread-safe: a snapshot of one pool recovery's counters. Nothing is dropped silently:
 * every drop, rejection, timeout and reset appears here.
 *
 * @param applied live or recovered events handed to the pool actor (accepted)
 * @param buffered live events buffered while their rank recovered (or was fenced)
 * @param bufferOverflows buffered events dropped (oldest first) because a rank's buffer was full
 * @param inboxOverflows live events dropped because the recovery's inbox was full (the next event is a gap)
 * @param stale live events at or below the rank's cursor, dropped (including skipped buffered ones)
 * @param gaps live events (or buffered ones in a drain) that were not contiguous and started a recovery
 * @param unknownPublisher events whose envelope publisher id is not bound (or whose member is ambiguous)
 * @param memberMismatch events of a bound publisher naming another (worker, rank) than the binding
 * @param barriers live all-domain {@code cleared} events newer than the cursor (rank reset, recovery invalidated)
 * @param queries recovery queries sent
 * @param queryFailures failed attempts by kind
 * @param timeouts attempts that timed out (also in {@code queryFailures[TIMEOUT]})
 * @param retries attempts scheduled after a failure
 * @param permitWaits attempts postponed because no relay-wide query permit was free
 * @param lateAnswers answers to invalidated or closed attempts, ignored
 * @param treeDumps tree dumps folded into a rank replacement
 * @param replacements {@code ReplaceRanks} batches accepted by the pool actor
 * @param invalidTreeDumps tree dumps rejected (also in {@code queryFailures[INVALID_TREE_DUMP]})
 * @param lifecycleResets {@code ResetRank} for removed, replaced or ambiguous sources
 * @param liveOnlyResets {@code ResetRank} of live-only sources on a first event or a gap
 * @param degradedResets {@code ResetRank(degraded)} after recovery retries were exhausted
 * @param exhausted recoveries abandoned after the last retry
 * @param discarded buffered events discarded by a reset (exhaustion, barrier, retirement)
 * @param submitRejected commands the pool actor refused
 * @param rejectedSources sources made ineligible after a source protocol fault (until their identity changes)
 * @param rejectedSourceEvents events of ineligible sources, dropped
 * @param resyncs full restores (or live-only resets) forced by a resource failure of the pool actor
 * @param planeFaults event-plane faults of the pool's kv-events subscription, by kind
 * @param faultRecoveries recoveries (or live-only resets) started by an event-plane fault
 * @param suspectMarks sources marked suspect by a transport disconnect
 * @param suspectSources sources suspect now (disconnected, not yet recovered after the reconnect)
 * @param backpressureWaits live events whose delivery thread had to wait for room in the recovery's full inbox
 *     (backpressure; a wait that timed out also counts in {@code inboxOverflows})
 * @param taskFailures steps of the recovery's serial task that threw (a bug: logged at ERROR with its stack; the task
 *     goes on with the next step, and the event or answer that step held is lost)
 * @param sources the bound sources now, one per {@code (worker, dp_rank)}, ordered by worker then rank (unsigned);
 *     a source that is removed or replaced leaves the list (its replacement enters as a new source)
 */
public record RecoveryStats(
    long applied,
    long buffered,
    long bufferOverflows,
    long inboxOverflows,
    long stale,
    long gaps,
    long unknownPublisher,
    long memberMismatch,
    long barriers,
    long queries,
    Map<QueryFailureKind, Long> queryFailures,
    long timeouts,
    long retries,
    long permitWaits,
    long lateAnswers,
    long treeDumps,
    long replacements,
    long invalidTreeDumps,
    long lifecycleResets,
    long liveOnlyResets,
    long degradedResets,
    long exhausted,
    long discarded,
    long submitRejected,
    long rejectedSources,
    long rejectedSourceEvents,
    long resyncs,
    Map<EventPlaneFaultKind, Long> planeFaults,
    long faultRecoveries,
    long suspectMarks,
    long suspectSources,
    long backpressureWaits,
    long taskFailures,
    List<SourceRecoveryStats> sources) {

  /** Copies the maps and the list. */
  public RecoveryStats {
    queryFailures = Map.copyOf(queryFailures);
    planeFaults = Map.copyOf(planeFaults);
    sources = List.copyOf(sources);
  }

  /** Event-plane faults of {@code kind}. */
  public long planeFaults(EventPlaneFaultKind kind) {
    return planeFaults.getOrDefault(kind, 0L);
  }

  /** Failed attempts of {@code kind}. */
  public long queryFailures(QueryFailureKind kind) {
    return queryFailures.getOrDefault(kind, 0L);
  }
}
