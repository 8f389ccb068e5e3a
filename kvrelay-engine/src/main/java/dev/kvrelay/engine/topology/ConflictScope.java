package dev.kvrelay.engine.topology;

/**
 * Immutable and thread-safe: the scope of a materialization conflict recorded on an endpoint
 * (producer.md §2.3), as far as topology cares.
 *
 * <p>Decision (b) of §2.3: only {@link #SERVING_TOPOLOGY} removes the endpoint from the topology;
 * {@link #POOL_MATERIALIZATION} keeps the member; {@link #SERVING_BINDING} omits only the binding (the
 * membership projection has already dropped it from the endpoint's base models).
 */
public enum ConflictScope {
  /** Fences or blocks the pool; the topology member stays. */
  POOL_MATERIALIZATION,
  /** Blocks the pool and removes the endpoint from the topology. */
  SERVING_TOPOLOGY,
  /** Omits only the affected binding. */
  SERVING_BINDING
}
