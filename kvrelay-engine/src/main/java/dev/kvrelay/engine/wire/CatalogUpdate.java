package dev.kvrelay.engine.wire;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one received {@code KvPoolCatalogUpdate} (wan-grpc.md §1.6), unvalidated. The pools
 * are carried as {@link DescriptorWire}, the shape a transport decodes, because §7.3 requires the consumer to
 * validate and quarantine each received descriptor itself; the in-process path maps its already valid
 * {@link KvPoolDescriptor}s with {@link KvPoolDescriptor#toWire()} (see {@link #ofDescriptors}).
 *
 * @param protocolVersion field 1
 * @param contractMarker field 127 (fixed32, unsigned)
 * @param relay field 2, null when absent
 * @param revision field 3 (unsigned)
 * @param pools the snapshot's pools (field 4.1), in received order
 */
public record CatalogUpdate(
    int protocolVersion, long contractMarker, @Nullable RelayIdentity relay, long revision, List<DescriptorWire> pools) {

  /** Copies the pool list. */
  public CatalogUpdate {
    pools = List.copyOf(pools);
  }

  /** A well-formed envelope of this build. */
  public static CatalogUpdate of(RelayIdentity relay, long revision, List<DescriptorWire> pools) {
    return new CatalogUpdate(RelayEnvelope.PROTOCOL_VERSION, RelayEnvelope.CONTRACT_MARKER, relay, revision, pools);
  }

  /** A well-formed envelope of this build over producer-side descriptors (the in-process path). */
  public static CatalogUpdate ofDescriptors(RelayIdentity relay, long revision, List<KvPoolDescriptor> pools) {
    List<DescriptorWire> wires = new ArrayList<>(pools.size());
    for (KvPoolDescriptor d : pools) {
      wires.add(DescriptorWire.of(d));
    }
    return of(relay, revision, wires);
  }
}
