package dev.kvrelay.engine.consumer;

/** Immutable: the life cycle of one pool replica, as {@link ReplicaStatus#state()} reports it. */
public enum ReplicaState {
  /** Never bound. */
  UNBOUND,
  /** Bound; the first snapshot is not complete yet. */
  SYNCING,
  /** A snapshot is installed; deltas and heartbeats keep it current. */
  LIVE,
  /** Terminated; see {@link ReplicaStatus#termination()}. Refuses frames until re-bound. */
  INVALIDATED
}
