package dev.kvrelay.ckf.consumer;

/** Immutable: the outcome of {@link GlobalCkfLaneIngestor#assign}. Only {@link #ASSIGNED} changes state. */
public enum LaneAssignmentResult {
  /** The lease is installed; the lane is not ready until a snapshot is installed under it. */
  ASSIGNED,
  /** The lease names another consumer instance. */
  WRONG_CONSUMER_INSTANCE,
  /** The lease names another physical lane. */
  WRONG_PHYSICAL_LANE,
  /** The pool is not the one the manifest binds to this lane. */
  WRONG_LANE_OWNER,
  /** The producer's CKF format differs from the manifest's. */
  WRONG_FORMAT,
  /** The assignment epoch is not strictly greater than the lane's previous one ({@code StaleAssignmentEpoch}). */
  STALE_ASSIGNMENT_EPOCH,
  /** The ingestor was closed. */
  INGESTOR_CLOSED
}
