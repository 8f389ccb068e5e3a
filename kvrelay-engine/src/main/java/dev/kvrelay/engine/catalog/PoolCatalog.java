package dev.kvrelay.engine.catalog;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool registry task. The producer's catalog of active pool generations
 * ({@code producer.md} §4, §2.7): one descriptor per {@link KvPoolId}, listed in ascending pool-id order, and a
 * revision that starts at 0 and advances by one (saturating at 2^64-1) on every applied upsert, removal and
 * clear. Snapshots are built lazily and shared until the next change.
 */
public final class PoolCatalog {

  /** The largest revision (u64 max); further changes keep it. */
  public static final long MAX_REVISION = -1L;

  private final RelayIdentity identity;
  private final TreeMap<KvPoolId, KvPoolDescriptor> pools = new TreeMap<>();
  private long revision;
  private @Nullable CatalogSnapshot snapshot;

  /** An empty catalog at revision 0 for the given Relay. */
  public PoolCatalog(RelayIdentity identity) {
    this(identity, 0L);
  }

  /** An empty catalog at the given (unsigned) revision; for tests of saturation. */
  PoolCatalog(RelayIdentity identity, long initialRevision) {
    this.identity = Objects.requireNonNull(identity, "identity");
    this.revision = initialRevision;
  }

  /** The publishing Relay. */
  public RelayIdentity identity() {
    return identity;
  }

  /** The current revision (unsigned). */
  public long revision() {
    return revision;
  }

  /** The number of listed pools. */
  public int size() {
    return pools.size();
  }

  /** The listed descriptor of {@code poolId}, if any. */
  public Optional<KvPoolDescriptor> get(KvPoolId poolId) {
    return Optional.ofNullable(pools.get(poolId));
  }

  /**
   * Lists or replaces a pool generation (attach, registration change, role change). Refused without change if
   * the producer incarnation is not this Relay's or a newer layout generation of the pool is listed.
   */
  public UpsertOutcome upsert(KvPoolDescriptor descriptor) {
    Objects.requireNonNull(descriptor, "descriptor");
    if (descriptor.producer().producerIncarnation() != identity.relayIncarnation()) {
      return UpsertOutcome.REJECTED_FOREIGN_INCARNATION;
    }
    KvPoolDescriptor current = pools.get(descriptor.poolId());
    if (current != null && Long.compareUnsigned(current.layoutGeneration(), descriptor.layoutGeneration()) > 0) {
      return UpsertOutcome.REJECTED_OLDER_GENERATION;
    }
    pools.put(descriptor.poolId(), descriptor);
    changed();
    return current == null ? UpsertOutcome.INSERTED : UpsertOutcome.REPLACED;
  }

  /**
   * Withdraws one pool generation. Generation-checked: only the listed generation equal to
   * {@code layoutGeneration} is removed, never another (in particular never a newer one).
   */
  public RemoveOutcome remove(KvPoolId poolId, long layoutGeneration) {
    Objects.requireNonNull(poolId, "poolId");
    KvPoolDescriptor current = pools.get(poolId);
    if (current == null) {
      return RemoveOutcome.ABSENT;
    }
    if (current.layoutGeneration() != layoutGeneration) {
      return RemoveOutcome.GENERATION_MISMATCH;
    }
    pools.remove(poolId);
    changed();
    return RemoveOutcome.REMOVED;
  }

  /** Removes every pool (registry shutdown); always advances the revision. */
  public void clear() {
    pools.clear();
    changed();
  }

  /** The current catalog: complete, sorted, no tombstones. The same instance until the next change. */
  public CatalogSnapshot snapshot() {
    CatalogSnapshot current = snapshot;
    if (current == null) {
      current = new CatalogSnapshot(identity, revision, new ArrayList<>(pools.values()));
      snapshot = current;
    }
    return current;
  }

  private void changed() {
    if (revision != MAX_REVISION) {
      revision++;
    }
    snapshot = null;
  }

  @Override
  public String toString() {
    return "PoolCatalog[" + identity + ", revision=" + Long.toUnsignedString(revision) + ", pools=" + pools.size()
        + "]";
  }
}
