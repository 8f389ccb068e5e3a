package dev.kvrelay.spi.eventplane;

import java.util.OptionalLong;

/**
 * Stateless and thread-safe: the encoding half of {@link EventPlaneCodec}, writing the envelope,
 * {@link RouterEvent} and {@link ActiveLoad} as {@code rmp_serde::to_vec_named} does (keys in the spec's
 * order, nil for absent optionals, the smallest msgpack form of every value).
 */
final class EventEncoder {

  private EventEncoder() {}

  /** A {@link RouterEvent} as {@code rmp_serde::to_vec_named} writes it. */
  static byte[] routerEvent(RouterEvent event) {
    MsgpackWriter out = new MsgpackWriter(64);
    boolean hasDomain = event.residencyDomain().kind() != ResidencyDomain.Kind.ABSENT;
    out.mapHeader(hasDomain ? 4 : 3);
    out.string("worker_id");
    out.u64(event.workerId());
    out.string("storage_tier");
    out.string(event.storageTier().wireName());
    if (hasDomain) {
      out.string("residency_domain");
      String raw = event.residencyDomain().raw();
      if (raw == null) {
        out.nil();
      } else {
        out.string(raw);
      }
    }
    out.string("event");
    out.mapHeader(3);
    out.string("event_id");
    out.u64(event.eventId());
    out.string("data");
    writeData(out, event.data());
    out.string("dp_rank");
    out.u32(event.dpRank());
    return out.toByteArray();
  }

  private static void writeData(MsgpackWriter out, KvEventData data) {
    if (data instanceof KvEventData.Stored s) {
      out.mapHeader(1);
      out.string("stored");
      out.mapHeader(3);
      out.string("parent_hash");
      writeOptional(out, s.parentHash());
      out.string("start_position");
      writeOptional(out, s.startPosition());
      out.string("blocks");
      out.arrayHeader(s.blocks().size());
      for (StoredBlock b : s.blocks()) {
        out.mapHeader(3);
        out.string("block_hash");
        out.u64(b.blockHash());
        out.string("tokens_hash");
        out.u64(b.tokensHash());
        out.string("mm_extra_info");
        MmExtraInfo mm = b.mmExtraInfo();
        if (mm == null) {
          out.nil();
        } else {
          writeMm(out, mm);
        }
      }
    } else if (data instanceof KvEventData.Removed r) {
      out.mapHeader(1);
      out.string("removed");
      out.mapHeader(1);
      out.string("block_hashes");
      out.arrayHeader(r.blockHashes().length);
      for (long h : r.blockHashes()) {
        out.u64(h);
      }
    } else {
      out.string("cleared");
    }
  }

  private static void writeMm(MsgpackWriter out, MmExtraInfo mm) {
    out.mapHeader(1);
    out.string("mm_objects");
    out.arrayHeader(mm.mmObjects().size());
    for (MmExtraInfo.MmObject o : mm.mmObjects()) {
      out.mapHeader(2);
      out.string("mm_hash");
      out.u64(o.mmHash());
      out.string("offsets");
      out.arrayHeader(o.offsets().size());
      for (MmExtraInfo.TokenRange r : o.offsets()) {
        out.arrayHeader(2);
        out.u64(r.start());
        out.u64(r.end());
      }
    }
  }

  /** An {@link ActiveLoad} as {@code rmp_serde::to_vec_named} writes it. */
  static byte[] activeLoad(ActiveLoad load) {
    MsgpackWriter out = new MsgpackWriter(96);
    out.mapHeader(6);
    out.string("worker_id");
    out.u64(load.workerId());
    out.string("dp_rank");
    out.u32(load.dpRank());
    out.string("active_decode_blocks");
    writeOptional(out, load.activeDecodeBlocks());
    out.string("active_prefill_tokens");
    writeOptional(out, load.activePrefillTokens());
    out.string("scheduler_load_scope");
    SchedulerLoadScope scope = load.schedulerLoadScope();
    if (scope == null) {
      out.nil();
    } else {
      out.string(scope.wireName());
    }
    out.string("kv_used_blocks");
    writeOptional(out, load.kvUsedBlocks());
    return out.toByteArray();
  }

  /** An envelope around an already encoded payload. */
  static byte[] envelope(EventEnvelope envelope, byte[] payload) {
    MsgpackWriter out = new MsgpackWriter(64 + payload.length);
    out.mapHeader(5);
    out.string("publisher_id");
    out.u64(envelope.publisherId());
    out.string("sequence");
    out.u64(envelope.sequence());
    out.string("published_at");
    out.u64(envelope.publishedAtMs());
    out.string("topic");
    out.string(envelope.topic());
    out.string("payload");
    out.bin(payload);
    return out.toByteArray();
  }

  private static void writeOptional(MsgpackWriter out, OptionalLong v) {
    if (v.isPresent()) {
      out.u64(v.getAsLong());
    } else {
      out.nil();
    }
  }
}
