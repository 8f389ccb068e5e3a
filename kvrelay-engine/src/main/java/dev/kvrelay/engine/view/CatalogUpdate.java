package dev.kvrelay.engine.view;

import dev.kvrelay.api.RelayIdentity;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one received {@code KvPoolCatalogUpdate} (wan-grpc.md §1.6), unvalidated.
 *
 * @param protocolVersion field 1
 * @param contractMarker field 127 (fixed32, unsigned)
 * @param relay field 2, null when absent
 * @param revision field 3 (unsigned)
 * @param pools the snapshot's pools (field 4.1)
 */
public record CatalogUpdate(
    int protocolVersion, long contractMarker, @Nullable RelayIdentity relay, long revision, List<PoolDescriptor> pools) {

  /** Copies the pool list. */
  public CatalogUpdate {
    pools = List.copyOf(pools);
  }

  /** A well-formed envelope of this build. */
  public static CatalogUpdate of(RelayIdentity relay, long revision, List<PoolDescriptor> pools) {
    return new CatalogUpdate(RelayEnvelope.PROTOCOL_VERSION, RelayEnvelope.CONTRACT_MARKER, relay, revision, pools);
  }
}
