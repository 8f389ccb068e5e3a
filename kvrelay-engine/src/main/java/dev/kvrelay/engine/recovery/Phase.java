package dev.kvrelay.engine.recovery;

/** Immutable and thread-safe: where a {@link Slot}'s recovery stands. */
enum Phase {
  /** Events are applied as they come (or, without a cursor, the next one starts a recovery). */
  LIVE,
  /** A query is in flight or a retry is scheduled; events are buffered. */
  RECOVERING,
  /** A tree dump is folded and waits in the replacement batch; events are buffered. */
  AWAITING_BATCH
}
