package dev.kvrelay.engine.consumer;

/** Immutable and thread-safe: why {@link GlobalView#assign} refused a pool (no state changed). */
enum GlobalViewRefusal {
  /** The pool belongs to another {@code IndexerDomainId} than the view's. */
  DIFFERENT_DOMAIN,
  /** The pool's producer uses another CKF format (seed, bucket count) than the view's. */
  DIFFERENT_FORMAT,
  /** The pool declares other query semantics (block size, hash format) than the view's domain. */
  DIFFERENT_QUERY_SEMANTICS,
  /** Another pool (or another producer of this pool) already holds a lane with the same dc id. */
  DUPLICATE_DC,
  /** All 16 lanes are bound. */
  FULL
}
