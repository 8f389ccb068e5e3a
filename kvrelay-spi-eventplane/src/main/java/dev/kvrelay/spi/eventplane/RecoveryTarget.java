package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.DynamoEndpointId;
import java.util.Objects;

/**
 * Immutable and thread-safe: the worker instance a recovery query is addressed to (the
 * {@code recovery_target} of a {@code KvEventSource}, runtime-inputs.md §6.1).
 *
 * @param endpoint the instance's endpoint; the query endpoint lives on the same namespace and component
 * @param instanceId the instance id (unsigned 64-bit); queries go to this exact instance
 * @param transport the instance's request-plane address
 */
public record RecoveryTarget(DynamoEndpointId endpoint, long instanceId, TransportAddress transport) {

  /** The query endpoint name prefix. */
  public static final String QUERY_ENDPOINT_PREFIX = "worker_kv_indexer_query_dp";

  /** Requires non-null parts. */
  public RecoveryTarget {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(transport, "transport");
  }

  /**
   * The query endpoint name for a rank (producer.md §3.6, decision (b)):
   * {@code worker_kv_indexer_query_dp{dpRank}}, or {@code worker_kv_indexer_query_dp{dpRank}_worker{workerId}}
   * when {@code workerId} differs from {@code instanceId}; numbers in unsigned decimal.
   */
  public static String queryEndpointName(int dpRank, long workerId, long instanceId) {
    String base = QUERY_ENDPOINT_PREFIX + Integer.toUnsignedString(dpRank);
    return workerId == instanceId ? base : base + "_worker" + Long.toUnsignedString(workerId);
  }

  /** The endpoint a query for {@code (workerId, dpRank)} is addressed to on this target. */
  public DynamoEndpointId queryEndpoint(long workerId, int dpRank) {
    return new DynamoEndpointId(endpoint.namespace(), endpoint.component(),
        queryEndpointName(dpRank, workerId, instanceId));
  }

  @Override
  public String toString() {
    return "RecoveryTarget[endpoint=" + endpoint + ", instanceId=" + Long.toUnsignedString(instanceId)
        + ", transport=" + transport + "]";
  }
}
