package dev.kvrelay.engine.topology;

/** Immutable and thread-safe: the typed result of one write to a {@link TopologyPublisher}. */
enum WriteOutcome {
  /** Applied; the derived entries changed and the revision advanced. */
  CHANGED,
  /** Applied (or a no-op); the derived entries are identical, the revision did not move. */
  UNCHANGED,
  /** Dropped: the write carries a slot incarnation that does not own the endpoint (zombie slot). */
  STALE_INCARNATION,
  /** Dropped: no slot has claimed the endpoint. */
  NOT_CLAIMED,
  /** Dropped: slot incarnations start at 1; 0 is never valid. */
  INVALID_INCARNATION,
  /** Dropped: the publisher was stopped and publishes an empty topology for good. */
  STOPPED
}
