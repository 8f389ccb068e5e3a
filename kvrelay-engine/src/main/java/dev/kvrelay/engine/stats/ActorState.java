package dev.kvrelay.engine.stats;

/** Immutable and thread-safe: the pool actor's lifecycle state. */
public enum ActorState {
  /** Accepting and applying commands. */
  RUNNING,
  /** Shut down: the tail was published, the lease retired. */
  SHUT_DOWN,
  /** Fenced: the tail was discarded; only Stats is still answered. */
  FENCED
}
