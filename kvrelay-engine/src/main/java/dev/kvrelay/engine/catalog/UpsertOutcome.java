package dev.kvrelay.engine.catalog;

/** Immutable and thread-safe: what {@link PoolCatalog#upsert} did. Only applied outcomes advance the revision. */
enum UpsertOutcome {
  /** The pool was not listed; now it is. */
  INSERTED,
  /** The pool was listed with the same or an older layout generation; its descriptor was replaced. */
  REPLACED,
  /** Refused, no change: the catalog lists a newer layout generation of this pool. */
  REJECTED_OLDER_GENERATION,
  /** Refused, no change: the descriptor's producer incarnation is not this Relay's incarnation. */
  REJECTED_FOREIGN_INCARNATION;

  /** True if the catalog changed (and its revision advanced). */
  public boolean applied() {
    return this == INSERTED || this == REPLACED;
  }
}
