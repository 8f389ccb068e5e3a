package dev.kvrelay.engine.stats;

import dev.kvrelay.ckf.producer.CkfProducerStats;

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
public record PoolActorStats(
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
