package dev.kvrelay.engine.wire;

import dev.kvrelay.api.KvPoolId;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable and thread-safe: the deployment facts of one model (wire {@code ModelDeploymentStatus},
 * wan-grpc.md §1.7). Counts are unsigned u64 carried in {@code long}s.
 *
 * @param expectedFrontends frontends expected to report (discovered ∪ fresh)
 * @param observedFrontends frontends with a fresh report
 * @param readyFrontends frontends reporting ready
 * @param servingPools catalog pools registering the model in its namespace: unique (an unmodifiable copy)
 */
public record ModelDeploymentStatus(
    long expectedFrontends, long observedFrontends, long readyFrontends, List<KvPoolId> servingPools) {

  /**
   * @throws IllegalArgumentException if a serving pool repeats
   */
  public ModelDeploymentStatus {
    servingPools = List.copyOf(servingPools);
    Set<KvPoolId> seen = new HashSet<>();
    for (KvPoolId pool : servingPools) {
      if (!seen.add(Objects.requireNonNull(pool, "pool"))) {
        throw new IllegalArgumentException("serving_pools repeats " + pool);
      }
    }
  }
}
