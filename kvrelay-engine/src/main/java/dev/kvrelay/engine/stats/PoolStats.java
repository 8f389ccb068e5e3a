package dev.kvrelay.engine.stats;

import dev.kvrelay.ckf.producer.CkfProducerStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the counters of one active pool generation.
 *
 * @param descriptor the pool's catalog descriptor
 * @param actor the actor's counters (with the producer's), or null if the actor did not answer in time
 * @param recovery the per-source recovery counters
 * @param load the load aggregator's counters
 */
public record PoolStats(
    KvPoolDescriptor descriptor, @Nullable Actor actor, Recovery recovery, Load load) {

  /**
   * Immutable and thread-safe counters of one pool actor.
   *
   * @param state lifecycle state
   * @param appliedEvents events handed to the producer (each counts one pending event)
   * @param ignoredNonPrimary valid events not targeting primary residency (no pending count)
   * @param unsupportedResidency events with an unknown residency domain (no mutation, no pending count)
   * @param ignoredWhileClosed events received after shutdown or fence
   * @param mailboxFull submissions rejected with {@code MAILBOX_FULL}
   * @param permitsExhausted submissions rejected with {@code PERMITS_EXHAUSTED}
   * @param closedRejections submissions rejected with {@code CLOSED}
   * @param faults all faults reported to the fault listener
   * @param capacityOmissions faults with disposition CONTINUE_CAPACITY_OMISSION
   * @param rejectSource faults with disposition REJECT_SOURCE
   * @param fenceFaults faults with disposition FENCE_AND_REBUILD_PRODUCER
   * @param degradedResets rank resets flagged degraded
   * @param lags publications the listener could not take (the publisher was fenced until re-snapshot)
   * @param listenerErrors exceptions thrown by the publication or fault listener
   * @param thresholdDrains drains triggered by the threshold
   * @param timerDrains drains triggered by the publication timer
   * @param commandDrains drains triggered by Flush, ResetRank, ReplaceRanks or Shutdown
   * @param publishedDeltas deltas the listener accepted
   * @param publishedSnapshots oversized-tail snapshots the listener accepted
   * @param retiredLeases current leases dropped by {@code RetireLease}
   * @param producer the producer's own counters
   */
  public record Actor(
      ActorState state,
      long appliedEvents,
      long ignoredNonPrimary,
      long unsupportedResidency,
      long ignoredWhileClosed,
      long mailboxFull,
      long permitsExhausted,
      long closedRejections,
      long faults,
      long capacityOmissions,
      long rejectSource,
      long fenceFaults,
      long degradedResets,
      long lags,
      long listenerErrors,
      long thresholdDrains,
      long timerDrains,
      long commandDrains,
      long publishedDeltas,
      long publishedSnapshots,
      long retiredLeases,
      CkfProducerStats producer) {}

  /** Immutable and thread-safe: the pool actor's lifecycle state. */
  public enum ActorState {
    /** Accepting and applying commands. */
    RUNNING,
    /** Shut down: the tail was published, the lease retired. */
    SHUT_DOWN,
    /** Fenced: the tail was discarded; only Stats is still answered. */
    FENCED
  }

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
  public record Recovery(
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
      Map<RelayEngineStats.EventPlaneFaultKind, Long> planeFaults,
      long faultRecoveries,
      long suspectMarks,
      long suspectSources,
      long backpressureWaits,
      long taskFailures,
      List<SourceRecovery> sources) {

    /** Copies the maps and the list. */
    public Recovery {
      queryFailures = Map.copyOf(queryFailures);
      planeFaults = Map.copyOf(planeFaults);
      sources = List.copyOf(sources);
    }

    /** Event-plane faults of {@code kind}. */
    public long planeFaults(RelayEngineStats.EventPlaneFaultKind kind) {
      return planeFaults.getOrDefault(kind, 0L);
    }

    /** Failed attempts of {@code kind}. */
    public long queryFailures(QueryFailureKind kind) {
      return queryFailures.getOrDefault(kind, 0L);
    }
  }

  /** Immutable and thread-safe: why one recovery attempt failed (counted in {@link Recovery#queryFailures()}). */
  public enum QueryFailureKind {
    /** No answer within the attempt timeout (the client's or the recovery's own timer). */
    TIMEOUT,
    /** The target could not be reached. */
    UNREACHABLE,
    /** The worker refused the request (load shedding). */
    REJECTED,
    /** The answer broke the protocol. */
    PROTOCOL,
    /** The request-plane client is closed. */
    CLOSED,
    /** The worker answered {@code TreeDumpFailed}. */
    TREE_DUMP_FAILED,
    /** The worker answered {@code TooNew}. */
    TOO_NEW,
    /** The worker answered {@code InvalidRange}. */
    INVALID_RANGE,
    /** The worker answered {@code Error}. */
    WORKER_ERROR,
    /** The tree dump held a non-Stored event, a wrong member or a broken block sequence. */
    INVALID_TREE_DUMP,
    /** The Events answer named another member. */
    INVALID_EVENTS,
    /** The pool actor refused the recovered state (mailbox full or permits). */
    SUBMIT_REJECTED
  }

  /**
   * Immutable and thread-safe: the recovery of one bound source (one publisher incarnation of a {@code (worker,
   * dp_rank)}) at one read. The recovery's serial task publishes each field as it changes (volatile, no lock, no
   * allocation per event), so the fields are each exact but not necessarily from the same instant.
   *
   * @param workerId the worker (discovery instance) id, unsigned 64-bit
   * @param dpRank the data-parallel rank, unsigned 32-bit
   * @param publisherId the event-plane {@code publisher_id} the source is bound to, unsigned 64-bit
   * @param state where its recovery stands
   * @param recoverable true if it has a recovery target (and the relay a request plane); false for a live-only source
   * @param suspect marked by a transport disconnect and not yet recovered after the reconnect
   * @param lastEventAgeMs milliseconds, on the recovery's monotonic clock, from the serial task's handling of the
   *     source's last live event (whatever its fate: applied, buffered, stale, dropped) to this read; {@code -1} if
   *     none arrived since the source was bound
   * @param resets {@code ResetRank} commands the pool actor accepted for this source since it was bound (live-only
   *     re-learning and degraded resets; the lifecycle reset that retires a source belongs to the incarnation it ends)
   * @param bufferedEvents live events buffered now, waiting for its recovery (or its fence) to end
   */
  public record SourceRecovery(
      long workerId,
      int dpRank,
      long publisherId,
      SourceRecoveryState state,
      boolean recoverable,
      boolean suspect,
      long lastEventAgeMs,
      long resets,
      int bufferedEvents) {

    /** Requires the state. */
    public SourceRecovery {
      Objects.requireNonNull(state, "state");
    }

    @Override
    public String toString() {
      return "SourceRecovery[worker=" + Long.toUnsignedString(workerId) + ", dpRank="
          + Integer.toUnsignedString(dpRank) + ", publisherId=" + Long.toUnsignedString(publisherId) + ", state="
          + state + ", recoverable=" + recoverable + ", suspect=" + suspect + ", lastEventAgeMs=" + lastEventAgeMs
          + ", resets=" + resets + ", bufferedEvents=" + bufferedEvents + "]";
    }
  }

  /** Immutable and thread-safe: where the recovery of one bound source stands (see {@link SourceRecovery}). */
  public enum SourceRecoveryState {
    /** Events are applied as they come (without a cursor yet, the next one starts a recovery). */
    LIVE,
    /** A recovery query is in flight or its retry is scheduled; live events are buffered. */
    RECOVERING,
    /** A tree dump was folded and waits in the rank-replacement batch; live events are buffered. */
    AWAITING_BATCH,
    /** A rank reset the pool actor refused is being retried; live events are buffered until it succeeds. */
    FENCED,
    /** Ineligible after a source protocol fault until its publisher changes; its events are dropped and counted. */
    REJECTED
  }

  /**
   * Immutable and thread-safe: cumulative counters of one {@code PoolLoadAggregator}.
   *
   * @param applied reports that stored or removed a value
   * @param ignoredAdvisory reports with neither kv usage nor a scheduler scope
   * @param stale reports with a sequence ≤ the publisher's last
   * @param gaps sequence gaps (each dropped that publisher's values)
   * @param unknownRank reports for undeclared ranks
   * @param discardedAboveCapacity kv values above the rank's known capacity
   * @param wrongTopic reports whose envelope topic is not {@code kv_metrics}
   * @param invalidRefreshes refreshes rejected as invalid (each cleared all state)
   * @param streamClears stream failures / closes that cleared observations
   * @param schedulerListingFailures failed discovery listings of the scheduler set (each made the scheduler view
   *     partial until a listing succeeded)
   */
  public record Load(
      long applied,
      long ignoredAdvisory,
      long stale,
      long gaps,
      long unknownRank,
      long discardedAboveCapacity,
      long wrongTopic,
      long invalidRefreshes,
      long streamClears,
      long schedulerListingFailures) {}
}
