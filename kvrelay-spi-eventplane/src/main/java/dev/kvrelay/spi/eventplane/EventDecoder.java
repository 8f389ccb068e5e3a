package dev.kvrelay.spi.eventplane;

import dev.kvrelay.spi.eventplane.EventDecodeException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the decoding half of {@link EventPlaneCodec}, reading the msgpack envelope,
 * {@link RouterEvent} and {@link ActiveLoad} maps with the lenient rules that class documents. Each method
 * reads one value from a {@link MsgpackReader} (confined to the caller) and leaves the end-of-input check to
 * the caller.
 */
final class EventDecoder {

  private EventDecoder() {}

  private static byte[][] names(String... names) {
    byte[][] out = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      out[i] = names[i].getBytes(StandardCharsets.US_ASCII);
    }
    return out;
  }

  private static final byte[][] ENVELOPE_KEYS = names("publisher_id", "sequence", "published_at", "topic", "payload");
  private static final byte[][] ROUTER_EVENT_KEYS = names("worker_id", "storage_tier", "residency_domain", "event");
  private static final byte[][] EVENT_KEYS = names("event_id", "data", "dp_rank");
  private static final byte[][] DATA_VARIANTS = names("stored", "removed", "cleared");
  private static final byte[][] STORED_KEYS = names("parent_hash", "start_position", "blocks");
  private static final byte[][] BLOCK_KEYS = names("block_hash", "tokens_hash", "mm_extra_info");
  private static final byte[][] MM_INFO_KEYS = names("mm_objects");
  private static final byte[][] MM_OBJECT_KEYS = names("mm_hash", "offsets");
  private static final byte[][] REMOVED_KEYS = names("block_hashes");
  private static final byte[][] LOAD_KEYS = names("worker_id", "dp_rank", "active_decode_blocks",
      "active_prefill_tokens", "scheduler_load_scope", "kv_used_blocks");
  private static final byte[][] STORAGE_TIERS = names("device", "host_pinned", "disk", "external");
  private static final byte[][] LOAD_SCOPES = names("local", "replica_synchronized");
  private static final StorageTier[] TIERS = StorageTier.values();
  private static final SchedulerLoadScope[] SCOPES = SchedulerLoadScope.values();

  // ------------------------------------------------------------------ envelope

  /** Immutable: a decoded envelope and where its payload bytes are. */
  record Envelope(EventEnvelope envelope, MsgpackReader.Span payload) {}

  /** Reads one envelope map; its payload is located, not decoded. */
  static Envelope readEnvelope(MsgpackReader in) throws EventDecodeException {
    int n = in.readMapHeader("");
    long publisher = 0;
    long sequence = 0;
    long publishedAt = 0;
    String topic = null;
    MsgpackReader.Span payload = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(ENVELOPE_KEYS, "");
      if (key < 0) {
        in.skipValue("");
        continue;
      }
      seen = markSeen(seen, key, ENVELOPE_KEYS, "");
      switch (key) {
        case 0 -> publisher = in.readU64("publisher_id");
        case 1 -> sequence = in.readU64("sequence");
        case 2 -> publishedAt = in.readU64("published_at");
        case 3 -> topic = in.readString("topic");
        default -> payload = in.readBytes("payload");
      }
    }
    requireAll(seen, ENVELOPE_KEYS, 0b11111, "");
    return new Envelope(new EventEnvelope(publisher, sequence, publishedAt, nonNull(topic)), nonNull(payload));
  }

  // ------------------------------------------------------------------ RouterEvent

  /** Reads one {@link RouterEvent} map. */
  static RouterEvent readRouterEvent(MsgpackReader in) throws EventDecodeException {
    int n = in.readMapHeader("");
    long workerId = 0;
    StorageTier tier = StorageTier.DEVICE;
    ResidencyDomain domain = ResidencyDomain.ABSENT;
    KvEvent event = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(ROUTER_EVENT_KEYS, "");
      if (key < 0) {
        in.skipValue("");
        continue;
      }
      seen = markSeen(seen, key, ROUTER_EVENT_KEYS, "");
      switch (key) {
        case 0 -> workerId = in.readU64("worker_id");
        case 1 -> tier = TIERS[readUnitVariant(in, STORAGE_TIERS, "storage_tier")];
        case 2 -> domain = readResidency(in);
        default -> event = readKvEvent(in);
      }
    }
    requireAll(seen, ROUTER_EVENT_KEYS, 0b1001, "");
    KvEvent ev = nonNull(event);
    return new RouterEvent(workerId, tier, domain, ev.eventId, ev.dpRank, ev.data);
  }

  /** Immutable: the fields of the nested {@code event} map. */
  private record KvEvent(long eventId, int dpRank, KvEventData data) {}

  private static KvEvent readKvEvent(MsgpackReader in) throws EventDecodeException {
    int n = in.readMapHeader("event");
    long eventId = 0;
    int dpRank = 0;
    KvEventData data = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(EVENT_KEYS, "event");
      if (key < 0) {
        in.skipValue("event");
        continue;
      }
      seen = markSeen(seen, key, EVENT_KEYS, "event");
      switch (key) {
        case 0 -> eventId = in.readU64("event.event_id");
        case 1 -> data = readData(in);
        default -> dpRank = in.readU32("event.dp_rank");
      }
    }
    requireAll(seen, EVENT_KEYS, 0b011, "event");
    return new KvEvent(eventId, dpRank, nonNull(data));
  }

  private static KvEventData readData(MsgpackReader in) throws EventDecodeException {
    String field = "event.data";
    if (in.nextIsString(field)) {
      int v = in.readName(DATA_VARIANTS, field);
      if (v == 2) {
        return KvEventData.Cleared.INSTANCE;
      }
      throw new EventDecodeException(Reason.BAD_VARIANT, field,
          v < 0 ? "unknown variant" : "variant '" + new String(DATA_VARIANTS[v], StandardCharsets.US_ASCII)
              + "' needs content (a one-entry map)");
    }
    if (!in.nextIsMap(field)) {
      throw in.wrongType(field, "a variant (string or one-entry map)");
    }
    int n = in.readMapHeader(field);
    if (n != 1) {
      throw new EventDecodeException(Reason.BAD_VARIANT, field, "a variant map must have one entry, has " + n);
    }
    if (!in.nextIsString(field)) {
      throw in.wrongType(field, "a variant name");
    }
    int v = in.readName(DATA_VARIANTS, field);
    return switch (v) {
      case 0 -> readStored(in);
      case 1 -> readRemoved(in);
      case 2 -> {
        in.skipValue("event.data.cleared");
        yield KvEventData.Cleared.INSTANCE;
      }
      default -> throw new EventDecodeException(Reason.BAD_VARIANT, field, "unknown variant");
    };
  }

  private static KvEventData.Stored readStored(MsgpackReader in) throws EventDecodeException {
    String field = "event.data.stored";
    int n = in.readMapHeader(field);
    OptionalLong parent = OptionalLong.empty();
    OptionalLong start = OptionalLong.empty();
    List<StoredBlock> blocks = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(STORED_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, STORED_KEYS, field);
      switch (key) {
        case 0 -> parent = readOptionalU64(in, "event.data.stored.parent_hash");
        case 1 -> start = readOptionalU64(in, "event.data.stored.start_position");
        default -> {
          int count = in.readArrayHeader("event.data.stored.blocks");
          List<StoredBlock> list = new ArrayList<>(count);
          for (int b = 0; b < count; b++) {
            list.add(readBlock(in));
          }
          blocks = list;
        }
      }
    }
    requireAll(seen, STORED_KEYS, 0b100, field);
    return new KvEventData.Stored(parent, start, nonNull(blocks));
  }

  private static StoredBlock readBlock(MsgpackReader in) throws EventDecodeException {
    String field = "event.data.stored.blocks";
    int n = in.readMapHeader(field);
    long blockHash = 0;
    long tokensHash = 0;
    MmExtraInfo mm = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(BLOCK_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, BLOCK_KEYS, field);
      switch (key) {
        case 0 -> blockHash = in.readU64("event.data.stored.blocks.block_hash");
        case 1 -> tokensHash = in.readU64("event.data.stored.blocks.tokens_hash");
        default -> mm = in.tryNil("event.data.stored.blocks.mm_extra_info") ? null : readMmInfo(in);
      }
    }
    requireAll(seen, BLOCK_KEYS, 0b011, field);
    return new StoredBlock(blockHash, tokensHash, mm);
  }

  private static MmExtraInfo readMmInfo(MsgpackReader in) throws EventDecodeException {
    String field = "event.data.stored.blocks.mm_extra_info";
    int n = in.readMapHeader(field);
    List<MmExtraInfo.MmObject> objects = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(MM_INFO_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, MM_INFO_KEYS, field);
      int count = in.readArrayHeader(field + ".mm_objects");
      List<MmExtraInfo.MmObject> list = new ArrayList<>(count);
      for (int o = 0; o < count; o++) {
        list.add(readMmObject(in));
      }
      objects = list;
    }
    requireAll(seen, MM_INFO_KEYS, 0b1, field);
    return new MmExtraInfo(nonNull(objects));
  }

  private static MmExtraInfo.MmObject readMmObject(MsgpackReader in) throws EventDecodeException {
    String field = "event.data.stored.blocks.mm_extra_info.mm_objects";
    int n = in.readMapHeader(field);
    long hash = 0;
    List<MmExtraInfo.TokenRange> offsets = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(MM_OBJECT_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, MM_OBJECT_KEYS, field);
      if (key == 0) {
        hash = in.readU64(field + ".mm_hash");
      } else {
        String f = field + ".offsets";
        int count = in.readArrayHeader(f);
        List<MmExtraInfo.TokenRange> list = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
          int pair = in.readArrayHeader(f);
          if (pair != 2) {
            throw new EventDecodeException(Reason.WRONG_TYPE, f, "expected a [start, end] pair, got " + pair + " elements");
          }
          list.add(new MmExtraInfo.TokenRange(in.readU64(f), in.readU64(f)));
        }
        offsets = list;
      }
    }
    requireAll(seen, MM_OBJECT_KEYS, 0b11, field);
    return new MmExtraInfo.MmObject(hash, nonNull(offsets));
  }

  private static KvEventData.Removed readRemoved(MsgpackReader in) throws EventDecodeException {
    String field = "event.data.removed";
    int n = in.readMapHeader(field);
    long[] hashes = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(REMOVED_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, REMOVED_KEYS, field);
      String f = "event.data.removed.block_hashes";
      int count = in.readArrayHeader(f);
      long[] out = new long[count];
      for (int h = 0; h < count; h++) {
        out[h] = in.readU64(f);
      }
      hashes = out;
    }
    requireAll(seen, REMOVED_KEYS, 0b1, field);
    return new KvEventData.Removed(nonNull(hashes));
  }

  private static ResidencyDomain readResidency(MsgpackReader in) throws EventDecodeException {
    String field = "residency_domain";
    if (in.tryNil(field)) {
      return ResidencyDomain.unknown(null);
    }
    if (in.nextIsString(field)) {
      return ResidencyDomain.fromWire(in.readString(field));
    }
    if (!in.nextIsMap(field)) {
      throw in.wrongType(field, "a residency domain (string, one-entry map or nil)");
    }
    int n = in.readMapHeader(field);
    if (n != 1) {
      throw new EventDecodeException(Reason.BAD_VARIANT, field, "a variant map must have one entry, has " + n);
    }
    if (!in.nextIsString(field)) {
      throw in.wrongType(field, "a variant name");
    }
    String name = in.readString(field);
    in.skipValue(field);
    return ResidencyDomain.fromWire(name);
  }

  // ------------------------------------------------------------------ ActiveLoad

  /** Reads one {@link ActiveLoad} map. */
  static ActiveLoad readActiveLoad(MsgpackReader in) throws EventDecodeException {
    int n = in.readMapHeader("");
    long workerId = 0;
    int dpRank = 0;
    OptionalLong decode = OptionalLong.empty();
    OptionalLong prefill = OptionalLong.empty();
    SchedulerLoadScope scope = null;
    OptionalLong used = OptionalLong.empty();
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(LOAD_KEYS, "");
      if (key < 0) {
        in.skipValue("");
        continue;
      }
      seen = markSeen(seen, key, LOAD_KEYS, "");
      switch (key) {
        case 0 -> workerId = in.readU64("worker_id");
        case 1 -> dpRank = in.readU32("dp_rank");
        case 2 -> decode = readOptionalU64(in, "active_decode_blocks");
        case 3 -> prefill = readOptionalU64(in, "active_prefill_tokens");
        case 4 -> scope = in.tryNil("scheduler_load_scope")
            ? null : SCOPES[readUnitVariant(in, LOAD_SCOPES, "scheduler_load_scope")];
        default -> used = readOptionalU64(in, "kv_used_blocks");
      }
    }
    requireAll(seen, LOAD_KEYS, 0b1, "");
    return new ActiveLoad(workerId, dpRank, decode, prefill, scope, used);
  }

  // ------------------------------------------------------------------ helpers

  private static OptionalLong readOptionalU64(MsgpackReader in, String field) throws EventDecodeException {
    return in.tryNil(field) ? OptionalLong.empty() : OptionalLong.of(in.readU64(field));
  }

  /** A unit variant as a bare string or a one-entry map whose value is ignored; returns its index. */
  private static int readUnitVariant(MsgpackReader in, byte[][] variants, String field) throws EventDecodeException {
    int v;
    if (in.nextIsString(field)) {
      v = in.readName(variants, field);
    } else if (in.nextIsMap(field)) {
      int n = in.readMapHeader(field);
      if (n != 1) {
        throw new EventDecodeException(Reason.BAD_VARIANT, field, "a variant map must have one entry, has " + n);
      }
      if (!in.nextIsString(field)) {
        throw in.wrongType(field, "a variant name");
      }
      v = in.readName(variants, field);
      if (v >= 0) {
        in.skipValue(field);
      }
    } else {
      throw in.wrongType(field, "a variant (string or one-entry map)");
    }
    if (v < 0) {
      throw new EventDecodeException(Reason.BAD_VARIANT, field, "unknown variant");
    }
    return v;
  }

  private static int markSeen(int seen, int key, byte[][] keys, String field) throws EventDecodeException {
    int bit = 1 << key;
    if ((seen & bit) != 0) {
      throw new EventDecodeException(Reason.DUPLICATE_FIELD, join(field, keys[key]), "field appears twice");
    }
    return seen | bit;
  }

  private static void requireAll(int seen, byte[][] keys, int required, String field) throws EventDecodeException {
    int missing = required & ~seen;
    if (missing != 0) {
      int key = Integer.numberOfTrailingZeros(missing);
      throw new EventDecodeException(Reason.MISSING_FIELD, join(field, keys[key]), "required field is absent");
    }
  }

  private static String join(String field, byte[] key) {
    String k = new String(key, StandardCharsets.US_ASCII);
    return field.isEmpty() ? k : field + "." + k;
  }

  private static <T> T nonNull(@Nullable T value) {
    if (value == null) {
      throw new IllegalStateException("required field checked present but not set");
    }
    return value;
  }
}
