package dev.kvrelay.engine.load;

/** Immutable and thread-safe: what {@link PoolLoadAggregator#observe} did with one report. */
public enum ObserveOutcome {
  /** A kv value or a scheduler view was stored or removed (possibly after a sequence gap was handled). */
  APPLIED,
  /** The report carried neither {@code kv_used_blocks} nor a scheduler scope; only its sequence counted. */
  IGNORED_ADVISORY,
  /** Envelope sequence ≤ the publisher's last sequence: ignored, no state change. */
  STALE,
  /** {@code (worker_id, dp_rank)} is not a declared rank: rejected; the publisher sequence still advances. */
  UNKNOWN_RANK,
  /** {@code kv_used_blocks} above the rank's known capacity: the value is discarded and the rank unobserved. */
  DISCARDED_ABOVE_CAPACITY,
  /** The envelope topic is not {@code kv_metrics}: rejected, no state change. */
  WRONG_TOPIC
}
