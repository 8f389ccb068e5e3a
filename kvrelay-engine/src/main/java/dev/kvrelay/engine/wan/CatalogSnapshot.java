package dev.kvrelay.engine.wan;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.RelayIdentity;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: one published state of the pool catalog ({@code producer.md} §4,
 * {@code wan-grpc.md} §2.7): complete (no tombstones), pools in strictly ascending {@link KvPoolId} order.
 * Consumers replace their whole view with each snapshot and may see skipped revisions.
 *
 * @param identity the publishing Relay
 * @param revision the catalog revision (unsigned; starts at 0, saturates at 2^64-1)
 * @param pools the active pool generations, strictly ascending by pool id (an unmodifiable copy)
 */
public record CatalogSnapshot(RelayIdentity identity, long revision, List<KvPoolDescriptor> pools) {

  /**
   * Trusted constructor.
   *
   * @throws IllegalArgumentException if the pools are not strictly ascending by pool id
   */
  public CatalogSnapshot {
    Objects.requireNonNull(identity, "identity");
    pools = List.copyOf(pools);
    for (int i = 1; i < pools.size(); i++) {
      if (pools.get(i - 1).poolId().compareTo(pools.get(i).poolId()) >= 0) {
        throw new IllegalArgumentException("catalog pools must be strictly ascending by pool id");
      }
    }
  }

  /** The descriptor of {@code poolId}, if listed. */
  public Optional<KvPoolDescriptor> find(KvPoolId poolId) {
    for (KvPoolDescriptor descriptor : pools) {
      if (descriptor.poolId().equals(poolId)) {
        return Optional.of(descriptor);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "CatalogSnapshot[" + identity + ", revision=" + Long.toUnsignedString(revision)
        + ", pools=" + pools.size() + "]";
  }
}
