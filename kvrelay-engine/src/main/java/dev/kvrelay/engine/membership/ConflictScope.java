package dev.kvrelay.engine.membership;

/**
 * Immutable and thread-safe: what a membership conflict blocks ({@code MaterializationConflictScope},
 * {@code producer.md} §2.3).
 */
public enum ConflictScope {
  /** Fences the pool; the topology member stays (e.g. zero block size, multiple domains, PoolId collision). */
  POOL_MATERIALIZATION("PoolMaterialization"),
  /** Blocks the pool and removes the endpoint from topology (multiple base models, multiple base cards). */
  SERVING_TOPOLOGY("ServingTopology"),
  /** Omits only the one registration (bad LoRA shape, ambiguous name, invalid ids). */
  SERVING_BINDING("ServingBinding");

  private final String text;

  ConflictScope(String text) {
    this.text = text;
  }

  /** True if a conflict of this scope blocks pool materialization. */
  public boolean blocksPool() {
    return this != SERVING_BINDING;
  }

  /**
   * True if a conflict of this scope removes the endpoint from the serving topology.
   *
   * <p>Decision ({@code producer.md} §2.3 box "topology conflict filter"): follow (b), the documented
   * contract — only {@link #SERVING_TOPOLOGY} removes the member.
   */
  public boolean removesTopologyMember() {
    return this == SERVING_TOPOLOGY;
  }

  /** The upstream variant name, e.g. {@code PoolMaterialization}. */
  @Override
  public String toString() {
    return text;
  }
}
