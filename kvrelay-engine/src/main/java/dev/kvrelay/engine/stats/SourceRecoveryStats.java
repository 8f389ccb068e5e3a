package dev.kvrelay.engine.stats;

import java.util.Objects;

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
 *     source's last live event (whatever its fate: applied, buffered, stale, dropped) to this read; {@code -1} if none
 *     arrived since the source was bound
 * @param resets {@code ResetRank} commands the pool actor accepted for this source since it was bound (live-only
 *     re-learning and degraded resets; the lifecycle reset that retires a source belongs to the incarnation it ends)
 * @param bufferedEvents live events buffered now, waiting for its recovery (or its fence) to end
 */
public record SourceRecoveryStats(
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
  public SourceRecoveryStats {
    Objects.requireNonNull(state, "state");
  }

  @Override
  public String toString() {
    return "SourceRecoveryStats[worker=" + Long.toUnsignedString(workerId) + ", dpRank="
        + Integer.toUnsignedString(dpRank) + ", publisherId=" + Long.toUnsignedString(publisherId) + ", state=" + state
        + ", recoverable=" + recoverable + ", suspect=" + suspect + ", lastEventAgeMs=" + lastEventAgeMs + ", resets="
        + resets + ", bufferedEvents=" + bufferedEvents + "]";
  }
}
