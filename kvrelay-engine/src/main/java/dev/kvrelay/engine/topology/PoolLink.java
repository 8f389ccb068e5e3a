package dev.kvrelay.engine.topology;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.WireText;
import java.util.Objects;

/**
 * Immutable and thread-safe: one catalog descriptor's claim that {@code (servingEndpoint, baseModel)}
 * is served by pool {@code poolId} (producer.md §5.1).
 *
 * @param servingEndpoint the descriptor's serving endpoint
 * @param baseModel the base model of a Base registration of the descriptor
 * @param poolId the stable pool id
 */
public record PoolLink(DynamoEndpointId servingEndpoint, String baseModel, KvPoolId poolId) {
  /** Validates. */
  public PoolLink {
    Objects.requireNonNull(servingEndpoint, "servingEndpoint");
    WireText.require("baseModel", baseModel);
    Objects.requireNonNull(poolId, "poolId");
  }
}
