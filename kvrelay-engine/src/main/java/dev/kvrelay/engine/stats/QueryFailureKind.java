package dev.kvrelay.engine.stats;

/** Immutable and thread-safe: why one recovery attempt failed (counted in {@link RecoveryStats#queryFailures()}). */
public enum QueryFailureKind {
  /** No answer within the attempt timeout (the client's or the recovery's own timer). */
  TIMEOUT,
  /** The target could not be reached. */
  UNREACHABLE,
  /** The worker refused the request (load shedding). */
  REJECTED,
  /** The answer broke the protocol. */
  PROTOCOL,
  /** The request-plane client is closed. */
  CLOSED,
  /** The worker answered {@code TreeDumpFailed}. */
  TREE_DUMP_FAILED,
  /** The worker answered {@code TooNew}. */
  TOO_NEW,
  /** The worker answered {@code InvalidRange}. */
  INVALID_RANGE,
  /** The worker answered {@code Error}. */
  WORKER_ERROR,
  /** The tree dump held a non-Stored event, a wrong member or a broken block sequence. */
  INVALID_TREE_DUMP,
  /** The Events answer named another member. */
  INVALID_EVENTS,
  /** The pool actor refused the recovered state (mailbox full or permits). */
  SUBMIT_REJECTED
}
