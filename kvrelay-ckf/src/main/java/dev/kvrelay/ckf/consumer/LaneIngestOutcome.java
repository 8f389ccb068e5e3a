package dev.kvrelay.ckf.consumer;

/**
 * Immutable: the typed outcome of one snapshot, delta, drain marker or heartbeat offered to a lane
 * (ckf-cbi1.md §7). Only {@link #SNAPSHOT_INSTALLED} and {@link #DELTA_APPLIED} write words; every
 * outcome with {@link #deactivatesLane()} clears the lane's ready bit and requires a new snapshot.
 */
public enum LaneIngestOutcome {
  /** A full snapshot was stored and the lane became ready at its sequence. */
  SNAPSHOT_INSTALLED(false),
  /** A contiguous delta was stored and the installed sequence advanced. */
  DELTA_APPLIED(false),
  /** The drain marker matched the installed sequence. */
  DRAIN_ACKNOWLEDGED(false),
  /** The heartbeat matched the installed sequence. */
  HEARTBEAT_ACKNOWLEDGED(false),
  /** No lease is assigned, or the frame carries another lease: ignored. */
  IGNORED_FOREIGN_LEASE(false),
  /** Sequence at or below the installed one on a ready lane: ignored. */
  IGNORED_STALE(false),
  /** A delta arrived while the lane has no installed snapshot: ignored. */
  AWAITING_SNAPSHOT(false),
  /** The producer identity differs from the assigned one. */
  WRONG_IDENTITY(true),
  /** The snapshot does not hold exactly B words. */
  INVALID_SNAPSHOT_BUCKET_COUNT(true),
  /** A newer snapshot arrived while the lane was ready ({@code SnapshotWhileReady}). */
  SNAPSHOT_WHILE_READY(true),
  /** The delta's base sequence is not the installed sequence (a gap). */
  BASE_SEQUENCE_MISMATCH(true),
  /** The delta's sequence is not base + 1. */
  NON_CONTIGUOUS_SEQUENCE(true),
  /** The delta's arrays are inconsistent (count negative or beyond an array): a caller or codec bug. */
  MALFORMED_DELTA(true),
  /** The delta has no image ({@code EmptyDelta}). */
  EMPTY_DELTA(true),
  /** An image addresses a bucket outside {@code [0, B)} ({@code InvalidImageIndex}). */
  INVALID_IMAGE_INDEX(true),
  /** Two images address the same bucket ({@code DuplicateImageIndex}). */
  DUPLICATE_IMAGE_INDEX(true),
  /** A drain marker or heartbeat did not match the installed sequence ({@code TerminalSequenceMismatch}). */
  TERMINAL_SEQUENCE_MISMATCH(true);

  private final boolean deactivatesLane;

  LaneIngestOutcome(boolean deactivatesLane) {
    this.deactivatesLane = deactivatesLane;
  }

  /** True if the lane was deactivated (ready bit cleared; a new snapshot is needed). */
  public boolean deactivatesLane() {
    return deactivatesLane;
  }

  /** True if words were written ({@link #SNAPSHOT_INSTALLED} or {@link #DELTA_APPLIED}). */
  public boolean wroteWords() {
    return this == SNAPSHOT_INSTALLED || this == DELTA_APPLIED;
  }
}
