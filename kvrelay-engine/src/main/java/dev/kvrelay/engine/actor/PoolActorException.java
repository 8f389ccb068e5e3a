package dev.kvrelay.engine.actor;

/** Immutable and thread-safe: a command the actor could not fulfil, with a typed reason. */
final class PoolActorException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable: why. */
  public enum Reason {
    /** The actor is fenced (invariant violation or Fence command): no more snapshots. */
    FENCED,
    /** The actor was shut down. */
    SHUT_DOWN,
    /** The publication sequence is exhausted. */
    SEQUENCE_EXHAUSTED
  }

  private final Reason reason;

  /** A new exception. */
  public PoolActorException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** The typed reason. */
  public Reason reason() {
    return reason;
  }
}
