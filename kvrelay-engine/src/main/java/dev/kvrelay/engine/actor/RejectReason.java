package dev.kvrelay.engine.actor;

/** Immutable and thread-safe: why the pool actor refused a command at submission. */
public enum RejectReason {
  /** The bounded mailbox (256 commands) is full. */
  MAILBOX_FULL,
  /** The event would exceed the pending block permits (65 536). */
  PERMITS_EXHAUSTED,
  /** The actor accepted Shutdown or Fence: the mailbox is closed. */
  CLOSED
}
