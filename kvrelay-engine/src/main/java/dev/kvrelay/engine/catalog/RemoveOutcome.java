package dev.kvrelay.engine.catalog;

/** Immutable and thread-safe: what {@link PoolCatalog#remove} did. Only {@link #REMOVED} advances the revision. */
enum RemoveOutcome {
  /** The pool generation was listed and is now gone. */
  REMOVED,
  /** No change: the pool is not listed. */
  ABSENT,
  /** No change: the pool is listed with another layout generation (a newer generation is never removed). */
  GENERATION_MISMATCH
}
