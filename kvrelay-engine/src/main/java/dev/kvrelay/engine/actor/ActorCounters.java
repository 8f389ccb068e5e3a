package dev.kvrelay.engine.actor;

import dev.kvrelay.ckf.producer.CkfProducerStats;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import dev.kvrelay.engine.stats.PoolStats;

/**
 * Not thread-safe: confined to the pool actor's task; the actor's counters off its per-event path (faults,
 * listener failures, lags, publications, command and timer drains, retired leases) and the assembly of its
 * {@link PoolStats.Actor} snapshot.
 *
 * <p>The per-event counters (applied, ignored non-primary, unsupported residency, threshold drains) stay plain fields
 * of {@link PoolActor}, and the submission rejections stay its lock-free adders; both are passed in to
 * {@link #snapshot}.
 */
final class ActorCounters {
  long ignoredWhileClosed;
  long faults;
  long capacityOmissions;
  long rejectSource;
  long fenceFaults;
  long degradedResets;
  long lags;
  long listenerErrors;
  long timerDrains;
  long commandDrains;
  long publishedDeltas;
  long publishedSnapshots;
  long retiredLeases;

  /** The actor's counters now, with the ones it keeps itself. */
  PoolStats.Actor snapshot(ActorState state, long appliedEvents, long ignoredNonPrimary, long unsupportedResidency,
      long mailboxFull, long permitsExhausted, long closedRejections, long thresholdDrains,
      CkfProducerStats producer) {
    return new PoolStats.Actor(state, appliedEvents, ignoredNonPrimary, unsupportedResidency, ignoredWhileClosed,
        mailboxFull, permitsExhausted, closedRejections, faults, capacityOmissions, rejectSource, fenceFaults,
        degradedResets, lags, listenerErrors, thresholdDrains, timerDrains, commandDrains, publishedDeltas,
        publishedSnapshots, retiredLeases, producer);
  }
}
