package dev.kvrelay.engine.actor;

/** Immutable and thread-safe: what the host does about a fault (producer.md §3.5). */
public enum FaultDisposition {
  /** A bounded relocation failed: log and continue (the hash stays exactly owned, not resident). */
  CONTINUE_CAPACITY_OMISSION,
  /** A pre-commit allocation failed: ask the recovery client to handle the target. */
  REPORT_RESOURCE_FAILURE,
  /** A source protocol failure: the source is ineligible until its identity changes. */
  REJECT_SOURCE,
  /** The producer's invariants broke: the actor is fenced; the host retires and rebuilds the pool. */
  FENCE_AND_REBUILD_PRODUCER
}
