package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the semantic advertisement of one KV event publisher ({@code metadata} of a
 * {@code DiscoveryInstance::EventSource}; {@code producer.md} §2.4): whose KV state it describes, and
 * where to recover it.
 *
 * @param kvStateEndpoint the endpoint whose KV state the events describe
 * @param workerId the worker (instance) id, u64
 * @param dpRank the data-parallel rank, u32 (0..4294967295)
 * @param publisherId the publisher id, u64
 * @param recoveryTarget the instance serving recovery queries, or {@code null} (live-only source)
 */
public record KvEventSource(
    DynamoEndpointId kvStateEndpoint,
    long workerId,
    long dpRank,
    long publisherId,
    @Nullable EndpointRecord recoveryTarget) {

  /** Largest u32. */
  public static final long MAX_U32 = 0xFFFF_FFFFL;

  /** @throws IllegalArgumentException if {@code dpRank} is not a u32 */
  public KvEventSource {
    if (dpRank < 0 || dpRank > MAX_U32) {
      throw new IllegalArgumentException("dp_rank " + dpRank + " is not a u32");
    }
  }

  /** True if a recovery target is advertised (status {@code ActiveRecoverable}, else {@code ActiveLiveOnly}). */
  public boolean isRecoverable() {
    return recoveryTarget != null;
  }
}
