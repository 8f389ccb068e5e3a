package dev.kvrelay.grpc.client;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.ReadinessUpdate;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.wire.PoolFrameCodec;
import dev.kvrelay.grpc.wire.PoolLoadWindow;
import dev.kvrelay.grpc.wire.ReadinessWire;
import dev.kvrelay.grpc.wire.ServingLoadWindow;
import dev.kvrelay.grpc.wire.WireCodec;
import dev.kvrelay.grpc.wire.WireEnvelope;

/**
 * Immutable and thread-safe (stateless; counts into the client's atomic counters): the client's decoders, one per
 * stream type.
 *
 * <p>Catalog and pool frames carry their envelope to the engine views ({@code CatalogView}, {@code PoolReplica}),
 * which check it themselves. Readiness and load values carry no envelope, so it is checked here (marker, then
 * protocol version, then relay present, wan-grpc.md §7.2) and a failure ends the stream with
 * {@link RelayErrorReason#CONTRACT_MISMATCH} (deployment skew: the consumer stops that source, never retries).
 *
 * <p>Readiness: {@link dev.kvrelay.engine.wire.WireSource#watchReadinessUpdates} (what {@code RelayConsumer}
 * reads) validates each entry on its own with {@link ReadinessUpdate#fromWire}: an invalid entry (malformed, or
 * unsupported from a newer contract) is quarantined under its key, never read as READY, and counted; the rest of the
 * message is used (wan-grpc.md §7.5). {@link dev.kvrelay.engine.wire.WireSource#watchReadiness} delivers typed
 * {@link TopologySnapshot}s, which cannot hold a quarantined entry, so there the first invalid entry, as a revision
 * of 0 on either path, ends the stream with {@link RelayErrorReason#INVALID_PUBLICATION}. An entry is never dropped
 * silently nor read with default semantics.
 *
 * <p>Pool load: entries whose producer fails validation are dropped from the window and counted. Serving load:
 * a broken window rule ends the stream with {@link RelayErrorReason#INVALID_PUBLICATION}; entries quarantined or
 * rejected one by one are dropped and counted.
 */
final class WireDecoders {
  private WireDecoders() {}

  static MessageDecoder<KvPoolCatalogUpdate, CatalogUpdate> catalog() {
    return m -> {
      try {
        return WireCodec.fromProto(m);
      } catch (WireValidationException e) {
        throw invalid("catalog update", e);
      }
    };
  }

  /**
   * Pool frames, for one stream: the decoder owns that stream's {@link PoolFrameCodec} (its producer memo), so it is
   * confined to the stream's serial message callback and must not be shared between streams.
   */
  static MessageDecoder<FilterUpdate, PoolFrame> pool() {
    PoolFrameCodec codec = new PoolFrameCodec();
    return m -> {
      try {
        return codec.decode(m);
      } catch (WireValidationException e) {
        throw invalid("filter update", e);
      }
    };
  }

  /**
   * Readiness as typed snapshots: any entry {@link ReadinessUpdate#fromWire} would quarantine or drop ends the stream
   * with {@link RelayErrorReason#INVALID_PUBLICATION} (a {@link TopologySnapshot} cannot hold it).
   */
  static MessageDecoder<ServingReadinessUpdate, TopologySnapshot> readiness() {
    return m -> {
      ReadinessUpdate update = checkedReadiness(m);
      if (!update.quarantined().isEmpty() || update.dropped() > 0) {
        throw new RelayException(RelayErrorReason.INVALID_PUBLICATION, "readiness update: invalid entries "
            + update.quarantined() + (update.dropped() > 0 ? ", " + update.dropped() + " without a readable key" : ""));
      }
      return new TopologySnapshot(update.revision(), update.entries());
    };
  }

  /** Readiness with each entry validated on its own (quarantined entries counted), envelope checked first. */
  static MessageDecoder<ServingReadinessUpdate, ReadinessUpdate> readinessUpdates(ClientCounters counters) {
    return m -> {
      ReadinessUpdate update = checkedReadiness(m);
      int refused = update.quarantined().size() + update.dropped();
      if (refused > 0) {
        counters.quarantinedReadinessEntries.addAndGet(refused);
      }
      return update;
    };
  }

  /** Envelope (CONTRACT_MISMATCH), then revision ≠ 0 (INVALID_PUBLICATION), then each entry on its own. */
  private static ReadinessUpdate checkedReadiness(ServingReadinessUpdate m) throws RelayException {
    ReadinessWire wire = WireCodec.fromProto(m);
    checkEnvelope("readiness update", wire.envelope());
    if (wire.revision() == 0) {
      throw new RelayException(RelayErrorReason.INVALID_PUBLICATION, "readiness update: revision 0");
    }
    return ReadinessUpdate.fromWire(wire.revision(), wire.entries());
  }

  static MessageDecoder<dev.kvrelay.grpc.proto.KvPoolLoadUpdate, KvPoolLoadUpdate> poolLoad(ClientCounters counters) {
    return m -> {
      PoolLoadWindow window = WireCodec.fromProto(m);
      checkEnvelope("pool load update", window.envelope());
      if (!window.excluded().isEmpty()) {
        counters.excludedPoolLoadEntries.addAndGet(window.excluded().size());
      }
      return window.update();
    };
  }

  static MessageDecoder<dev.kvrelay.grpc.proto.ServingLoadUpdate, ServingLoadUpdate> servingLoad(
      ClientCounters counters) {
    return m -> {
      checkEnvelope("serving load update", new WireEnvelope(m.getProtocolVersion(),
          Integer.toUnsignedLong(m.getContractMarker()), m.hasRelay() ? WireCodec.fromProto(m.getRelay()) : null));
      ServingLoadWindow window;
      try {
        window = WireCodec.fromProto(m);
      } catch (WireValidationException e) {
        throw invalid("serving load update", e);
      }
      if (!window.excludedPools().isEmpty()) {
        counters.excludedServingPools.addAndGet(window.excludedPools().size());
      }
      if (!window.excludedModels().isEmpty()) {
        counters.excludedServingModels.addAndGet(window.excludedModels().size());
      }
      return window.update();
    };
  }

  /** The envelope of a type that cannot carry it to the engine: any failure is CONTRACT_MISMATCH. */
  static void checkEnvelope(String what, WireEnvelope envelope) throws RelayException {
    try {
      envelope.check();
    } catch (WireValidationException e) {
      throw new RelayException(RelayErrorReason.CONTRACT_MISMATCH,
          what + ": " + e.field() + ": " + e.detail());
    }
  }

  private static RelayException invalid(String what, WireValidationException e) {
    return new RelayException(RelayErrorReason.INVALID_PUBLICATION,
        what + ": " + e.kind() + " " + e.field() + ": " + e.detail());
  }
}
