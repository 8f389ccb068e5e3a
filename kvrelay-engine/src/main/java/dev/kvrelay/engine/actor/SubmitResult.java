package dev.kvrelay.engine.actor;

/** Immutable and thread-safe: the result of offering a command to the pool actor's mailbox. */
public sealed interface SubmitResult permits SubmitResult.Accepted, SubmitResult.Rejected {
  /** Immutable: the command is queued. */
  enum Accepted implements SubmitResult {
    INSTANCE
  }

  /** Immutable: the command was refused; nothing changed. */
  record Rejected(RejectReason reason) implements SubmitResult {}

  /** True for {@link Accepted}. */
  default boolean accepted() {
    return this instanceof Accepted;
  }
}
