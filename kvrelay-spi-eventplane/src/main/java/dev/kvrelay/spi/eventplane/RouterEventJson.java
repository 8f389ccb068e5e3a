package dev.kvrelay.spi.eventplane;

import static dev.kvrelay.spi.eventplane.QueryJson.array;
import static dev.kvrelay.spi.eventplane.QueryJson.join;
import static dev.kvrelay.spi.eventplane.QueryJson.object;
import static dev.kvrelay.spi.eventplane.QueryJson.optional;
import static dev.kvrelay.spi.eventplane.QueryJson.optionalU64;
import static dev.kvrelay.spi.eventplane.QueryJson.required;
import static dev.kvrelay.spi.eventplane.QueryJson.u32;
import static dev.kvrelay.spi.eventplane.QueryJson.u64;
import static dev.kvrelay.spi.eventplane.QueryJson.wrongType;

import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.eventplane.WorkerKvQueryDecodeException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Stateless and thread-safe: the {@link RouterEvent} half of {@link WorkerKvQueryCodec}, the JSON form of
 * the events a recovery response carries, with the field names and shapes of the msgpack form
 * (runtime-inputs.md §5.7) and the decoding defaults that class documents.
 */
final class RouterEventJson {

  private RouterEventJson() {}

  /** The JSON object of one {@link RouterEvent} (field names and shapes of runtime-inputs.md §5.7). */
  static JsonObject routerEventJson(RouterEvent event) {
    JsonObject.Builder b = JsonObject.builder()
        .put("worker_id", JsonNumber.ofUnsigned(event.workerId()))
        .put("storage_tier", event.storageTier().wireName());
    if (event.residencyDomain().kind() != ResidencyDomain.Kind.ABSENT) {
      String raw = event.residencyDomain().raw();
      b.put("residency_domain", raw == null ? JsonNull.INSTANCE : new JsonString(raw));
    }
    JsonObject inner = JsonObject.builder()
        .put("event_id", JsonNumber.ofUnsigned(event.eventId()))
        .put("data", dataJson(event.data()))
        .put("dp_rank", JsonNumber.ofUnsigned(Integer.toUnsignedLong(event.dpRank())))
        .build();
    return b.put("event", inner).build();
  }

  private static JsonValue dataJson(KvEventData data) {
    if (data instanceof KvEventData.Stored s) {
      List<JsonValue> blocks = new ArrayList<>(s.blocks().size());
      for (StoredBlock blk : s.blocks()) {
        MmExtraInfo mm = blk.mmExtraInfo();
        blocks.add(JsonObject.builder()
            .put("block_hash", JsonNumber.ofUnsigned(blk.blockHash()))
            .put("tokens_hash", JsonNumber.ofUnsigned(blk.tokensHash()))
            .put("mm_extra_info", mm == null ? JsonNull.INSTANCE : mmJson(mm))
            .build());
      }
      JsonObject stored = JsonObject.builder()
          .put("parent_hash", optional(s.parentHash()))
          .put("start_position", optional(s.startPosition()))
          .put("blocks", new JsonArray(blocks))
          .build();
      return JsonObject.builder().put("stored", stored).build();
    }
    if (data instanceof KvEventData.Removed r) {
      List<JsonValue> hashes = new ArrayList<>(r.blockHashes().length);
      for (long h : r.blockHashes()) {
        hashes.add(JsonNumber.ofUnsigned(h));
      }
      return JsonObject.builder()
          .put("removed", JsonObject.builder().put("block_hashes", new JsonArray(hashes)).build()).build();
    }
    return new JsonString("cleared");
  }

  private static JsonValue mmJson(MmExtraInfo mm) {
    List<JsonValue> objects = new ArrayList<>();
    for (MmExtraInfo.MmObject o : mm.mmObjects()) {
      List<JsonValue> offsets = new ArrayList<>();
      for (MmExtraInfo.TokenRange r : o.offsets()) {
        offsets.add(JsonArray.of(JsonNumber.ofUnsigned(r.start()), JsonNumber.ofUnsigned(r.end())));
      }
      objects.add(JsonObject.builder().put("mm_hash", JsonNumber.ofUnsigned(o.mmHash()))
          .put("offsets", new JsonArray(offsets)).build());
    }
    return JsonObject.builder().put("mm_objects", new JsonArray(objects)).build();
  }

  static JsonArray events(List<RouterEvent> events) {
    List<JsonValue> out = new ArrayList<>(events.size());
    for (RouterEvent e : events) {
      out.add(routerEventJson(e));
    }
    return new JsonArray(out);
  }

  static List<RouterEvent> readEvents(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    JsonArray a = array(v, field);
    List<RouterEvent> out = new ArrayList<>(a.size());
    for (JsonValue e : a.elements()) {
      out.add(readRouterEvent(e, field));
    }
    return out;
  }

  static RouterEvent readRouterEvent(JsonValue value, String path) throws WorkerKvQueryDecodeException {
    JsonObject o = object(value, path);
    long worker = u64(required(o, "worker_id", path), join(path, "worker_id"));
    StorageTier tier = StorageTier.DEVICE;
    JsonValue t = o.get("storage_tier");
    if (t != null) {
      tier = readTier(t, join(path, "storage_tier"));
    }
    ResidencyDomain domain = ResidencyDomain.ABSENT;
    JsonValue d = o.get("residency_domain");
    if (d != null) {
      domain = readResidency(d, join(path, "residency_domain"));
    }
    String ev = join(path, "event");
    JsonObject event = object(required(o, "event", path), ev);
    long eventId = u64(required(event, "event_id", ev), join(ev, "event_id"));
    KvEventData data = readData(required(event, "data", ev), join(ev, "data"));
    JsonValue rank = event.get("dp_rank");
    int dpRank = rank == null ? 0 : u32(rank, join(ev, "dp_rank"));
    return new RouterEvent(worker, tier, domain, eventId, dpRank, data);
  }

  private static StorageTier readTier(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    String name = variantName(v, field);
    for (StorageTier tier : StorageTier.values()) {
      if (tier.wireName().equals(name)) {
        return tier;
      }
    }
    throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, field, "unknown storage tier '" + name + "'", null);
  }

  private static ResidencyDomain readResidency(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonNull) {
      return ResidencyDomain.unknown(null);
    }
    if (v instanceof JsonString s) {
      return ResidencyDomain.fromWire(s.value());
    }
    if (v instanceof JsonObject o) {
      if (o.size() != 1) {
        throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, field,
            "a variant object must have one member, has " + o.size(), null);
      }
      return ResidencyDomain.fromWire(o.members().keySet().iterator().next());
    }
    throw wrongType(field, "a residency domain (string, one-member object or null)", v);
  }

  /** A unit variant as a string, or a one-member object's name. */
  private static String variantName(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonString s) {
      return s.value();
    }
    if (v instanceof JsonObject o) {
      if (o.size() != 1) {
        throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, field,
            "a variant object must have one member, has " + o.size(), null);
      }
      return o.members().keySet().iterator().next();
    }
    throw wrongType(field, "a variant (string or one-member object)", v);
  }

  private static KvEventData readData(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonString s) {
      if (s.value().equals("cleared")) {
        return KvEventData.Cleared.INSTANCE;
      }
      throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, field,
          s.value().equals("stored") || s.value().equals("removed")
              ? "variant '" + s.value() + "' needs content (a one-member object)"
              : "unknown variant '" + s.value() + "'", null);
    }
    if (!(v instanceof JsonObject o)) {
      throw wrongType(field, "a variant (string or one-member object)", v);
    }
    if (o.size() != 1) {
      throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, field,
          "a variant object must have one member, has " + o.size(), null);
    }
    Map.Entry<String, JsonValue> only = o.members().entrySet().iterator().next();
    return switch (only.getKey()) {
      case "stored" -> readStored(only.getValue(), join(field, "stored"));
      case "removed" -> readRemoved(only.getValue(), join(field, "removed"));
      case "cleared" -> KvEventData.Cleared.INSTANCE;
      default -> throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, field,
            "unknown variant '" + only.getKey() + "'", null);
    };
  }

  private static KvEventData.Stored readStored(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    JsonObject o = object(v, field);
    OptionalLong parent = optionalU64(o.get("parent_hash"), join(field, "parent_hash"));
    OptionalLong start = optionalU64(o.get("start_position"), join(field, "start_position"));
    String bf = join(field, "blocks");
    JsonArray blocks = array(required(o, "blocks", field), bf);
    List<StoredBlock> out = new ArrayList<>(blocks.size());
    for (JsonValue b : blocks.elements()) {
      JsonObject blk = object(b, bf);
      long blockHash = u64(required(blk, "block_hash", bf), join(bf, "block_hash"));
      long tokensHash = u64(required(blk, "tokens_hash", bf), join(bf, "tokens_hash"));
      JsonValue mm = blk.get("mm_extra_info");
      out.add(new StoredBlock(blockHash, tokensHash,
          mm == null || mm instanceof JsonNull ? null : readMm(mm, join(bf, "mm_extra_info"))));
    }
    return new KvEventData.Stored(parent, start, out);
  }

  private static MmExtraInfo readMm(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    JsonObject o = object(v, field);
    String of = join(field, "mm_objects");
    JsonArray objects = array(required(o, "mm_objects", field), of);
    List<MmExtraInfo.MmObject> out = new ArrayList<>(objects.size());
    for (JsonValue e : objects.elements()) {
      JsonObject obj = object(e, of);
      long hash = u64(required(obj, "mm_hash", of), join(of, "mm_hash"));
      String rf = join(of, "offsets");
      JsonArray offsets = array(required(obj, "offsets", of), rf);
      List<MmExtraInfo.TokenRange> ranges = new ArrayList<>(offsets.size());
      for (JsonValue r : offsets.elements()) {
        JsonArray pair = array(r, rf);
        if (pair.size() != 2) {
          throw new WorkerKvQueryDecodeException(Reason.WRONG_TYPE, rf,
              "expected a [start, end] pair, got " + pair.size() + " elements", null);
        }
        ranges.add(new MmExtraInfo.TokenRange(u64(pair.get(0), rf), u64(pair.get(1), rf)));
      }
      out.add(new MmExtraInfo.MmObject(hash, ranges));
    }
    return new MmExtraInfo(out);
  }

  private static KvEventData.Removed readRemoved(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    JsonObject o = object(v, field);
    String hf = join(field, "block_hashes");
    JsonArray a = array(required(o, "block_hashes", field), hf);
    long[] hashes = new long[a.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = u64(a.get(i), hf);
    }
    return new KvEventData.Removed(hashes);
  }
}
