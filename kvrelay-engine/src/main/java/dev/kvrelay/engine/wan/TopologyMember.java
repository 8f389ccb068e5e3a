package dev.kvrelay.engine.wan;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.WorkerRole;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: one member endpoint of a topology entry (wire {@code TopologyMember}).
 *
 * @param endpoint the serving endpoint
 * @param roles its declared roles, non-empty, unique, in enum order
 * @param poolId the endpoint's pool while materialized and linked unambiguously
 */
public record TopologyMember(DynamoEndpointId endpoint, List<WorkerRole> roles, Optional<KvPoolId> poolId) {
  /** Validates and copies. */
  public TopologyMember {
    Objects.requireNonNull(endpoint, "endpoint");
    roles = Roles.sortedUnique("roles", roles);
    if (roles.isEmpty()) {
      throw new IllegalArgumentException("member roles must not be empty");
    }
    Objects.requireNonNull(poolId, "poolId");
  }
}
