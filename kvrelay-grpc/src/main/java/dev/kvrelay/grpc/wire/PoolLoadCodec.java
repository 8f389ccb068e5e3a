package dev.kvrelay.grpc.wire;

import static dev.kvrelay.grpc.wire.IdentityCodec.CONTRACT_MARKER_BITS;
import static dev.kvrelay.grpc.wire.IdentityCodec.PROTOCOL_VERSION;
import static dev.kvrelay.grpc.wire.IdentityCodec.envelope;
import static dev.kvrelay.grpc.wire.IdentityCodec.producer;
import static dev.kvrelay.grpc.wire.IdentityCodec.toProto;

import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.grpc.proto.KvPoolLoadEntry;
import dev.kvrelay.grpc.proto.KvPoolLoadUpdate;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import java.util.ArrayList;
import java.util.List;

/**
 * Immutable (stateless): the codec of the pool-load family — {@code KvPoolLoadUpdate} windows (wan-grpc.md §1.7).
 */
final class PoolLoadCodec {
  private PoolLoadCodec() {}

  /** {@code KvPoolLoadUpdate} for a published window of {@code relay}. */
  static KvPoolLoadUpdate encodeWindow(
      dev.kvrelay.api.RelayIdentity relay, dev.kvrelay.engine.wire.KvPoolLoadUpdate window) {
    KvPoolLoadUpdate.Builder b = KvPoolLoadUpdate.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setWindowSequence(window.windowSequence())
        .setObservedMs(window.observedMs())
        .setWindowMs(window.windowMs())
        .setContractMarker(CONTRACT_MARKER_BITS);
    for (dev.kvrelay.engine.wan.KvPoolLoadEntry e : window.pools()) {
      b.addPools(KvPoolLoadEntry.newBuilder()
          .setProducer(toProto(e.producer()))
          .setKvUsedBlocks(e.kvUsedBlocks())
          .setTotalKvBlocks(e.totalKvBlocks())
          .setKvObservedRanks(u32(e.kvObservedRanks()))
          .setKvExpectedRanks(u32(e.kvExpectedRanks())));
    }
    return b.build();
  }

  /** A u32 count (0..2^32-1 in a long) as its {@code uint32} bits; larger values saturate. */
  private static int u32(long count) {
    return count < 0 || count > 0xFFFF_FFFFL ? -1 : (int) count;
  }

  /**
   * A received pool-load window. Each entry's producer is validated with {@code ProducerIdentity.fromWire};
   * an entry that fails is listed in {@link PoolLoadWindow#excluded()} instead of the update (it could never
   * join a catalog pool by ProducerKey). The envelope is not judged here: check it first.
   */
  static PoolLoadWindow decodeWindow(KvPoolLoadUpdate update) {
    List<dev.kvrelay.engine.wan.KvPoolLoadEntry> entries = new ArrayList<>(update.getPoolsCount());
    List<ExcludedEntry> excluded = new ArrayList<>();
    for (int i = 0; i < update.getPoolsCount(); i++) {
      KvPoolLoadEntry e = update.getPools(i);
      try {
        dev.kvrelay.api.ProducerIdentity producer = producer(e.hasProducer() ? e.getProducer() : null);
        entries.add(new dev.kvrelay.engine.wan.KvPoolLoadEntry(producer, e.getKvUsedBlocks(), e.getTotalKvBlocks(),
            Integer.toUnsignedLong(e.getKvObservedRanks()), Integer.toUnsignedLong(e.getKvExpectedRanks())));
      } catch (WireValidationException x) {
        excluded.add(ExcludedEntry.of(i, x));
      }
    }
    return new PoolLoadWindow(
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null),
        new dev.kvrelay.engine.wire.KvPoolLoadUpdate(
            update.getWindowSequence(), update.getObservedMs(), update.getWindowMs(), entries),
        excluded);
  }
}
