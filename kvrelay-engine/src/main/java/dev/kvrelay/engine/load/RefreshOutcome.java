package dev.kvrelay.engine.load;

/** Immutable and thread-safe: what {@link PoolLoadAggregator#refresh} did with a set of runtime configs. */
enum RefreshOutcome {
  /** Same declared ranks and capacities: nothing changed. */
  UNCHANGED,
  /** Ranks or capacities changed: observations of the affected ranks were cleared. */
  CHANGED,
  /** A worker id or config was missing: every rank and observation was cleared (load becomes degraded). */
  INVALID_CONFIG
}
