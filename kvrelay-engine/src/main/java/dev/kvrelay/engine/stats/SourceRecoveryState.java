package dev.kvrelay.engine.stats;

/** Immutable and thread-safe: where the recovery of one bound source stands (see {@link SourceRecoveryStats}). */
public enum SourceRecoveryState {
  /** Events are applied as they come (without a cursor yet, the next one starts a recovery). */
  LIVE,
  /** A recovery query is in flight or its retry is scheduled; live events are buffered. */
  RECOVERING,
  /** A tree dump was folded and waits in the rank-replacement batch; live events are buffered. */
  AWAITING_BATCH,
  /** A rank reset the pool actor refused is being retried; live events are buffered until it succeeds. */
  FENCED,
  /** Ineligible after a source protocol fault until its publisher changes; its events are dropped and counted. */
  REJECTED
}
