package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DynamoEndpointId;

/**
 * Immutable and thread-safe: one expected KV source {@code (kv_state_endpoint, worker, dp_rank)}, ordered
 * by endpoint, then unsigned worker id, then unsigned rank.
 *
 * @param kvStateEndpoint the endpoint whose event sources describe the worker's KV
 * @param workerId the worker id (u64)
 * @param dpRank the data-parallel rank (u32)
 */
public record KvSourceKey(DynamoEndpointId kvStateEndpoint, long workerId, long dpRank)
    implements Comparable<KvSourceKey> {

  @Override
  public int compareTo(KvSourceKey o) {
    int c = kvStateEndpoint.compareTo(o.kvStateEndpoint);
    if (c == 0) {
      c = Long.compareUnsigned(workerId, o.workerId);
    }
    return c != 0 ? c : Long.compareUnsigned(dpRank, o.dpRank);
  }

  @Override
  public String toString() {
    return kvStateEndpoint.path() + "#" + Long.toUnsignedString(workerId) + "/" + dpRank;
  }
}
