package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonException;
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
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (stateless): the JSON codec of {@link WorkerKvQueryRequest} and {@link
 * WorkerKvQueryResponse} on the default request-plane codec (runtime-inputs.md §6.2), in serde's shapes:
 * the request a plain object, the response an externally tagged enum ({@code {"Events": {…}}}, {@code
 * {"Error": "msg"}}), events inside as {@link RouterEvent} JSON with the field names of the msgpack form
 * (§5.7). Unsigned 64-bit values are JSON numbers read and written unsigned.
 *
 * <p>Decoding follows serde's defaults and the msgpack decoder's rules: unknown members are ignored;
 * {@code storage_tier} absent ⇒ device; {@code residency_domain} absent ⇒ legacy, {@code null} or an unknown
 * name ⇒ kept as unknown; {@code dp_rank} absent ⇒ 0; {@code supports_tree_dump_failed} absent ⇒ false;
 * {@code kind} absent ⇒ recovery; {@code reset_scope} absent ⇒ {@code "all"} (a non-string scope is kept as
 * its JSON text); optional ids accept {@code null} or absence. Every defect is a {@link
 * WorkerKvQueryDecodeException}; nothing unchecked escapes for any input. Encoding throws
 * {@link IllegalArgumentException} only for a string holding an unpaired UTF-16 surrogate (JSON cannot carry it).
 */
public final class WorkerKvQueryCodec {

  private WorkerKvQueryCodec() {}

  // ------------------------------------------------------------------ request

  /** The JSON object of {@code request}. */
  public static JsonObject requestJson(WorkerKvQueryRequest request) {
    return JsonObject.builder()
        .put("worker_id", JsonNumber.ofUnsigned(request.workerId()))
        .put("dp_rank", JsonNumber.ofUnsigned(Integer.toUnsignedLong(request.dpRank())))
        .put("start_event_id", optional(request.startEventId()))
        .put("end_event_id", optional(request.endEventId()))
        .put("supports_tree_dump_failed", request.supportsTreeDumpFailed())
        .put("kind", request.kind().wireName())
        .build();
  }

  /** The compact JSON text of {@code request}. */
  public static String encodeRequest(WorkerKvQueryRequest request) {
    return Json.write(requestJson(request));
  }

  /** Decodes a request from JSON text. */
  public static WorkerKvQueryRequest decodeRequest(String json) throws WorkerKvQueryDecodeException {
    return decodeRequest(parse(json));
  }

  /** Decodes a request from UTF-8 JSON. */
  public static WorkerKvQueryRequest decodeRequest(byte[] utf8) throws WorkerKvQueryDecodeException {
    return decodeRequest(parse(utf8));
  }

  /** Decodes a request from a parsed JSON value. */
  public static WorkerKvQueryRequest decodeRequest(JsonValue value) throws WorkerKvQueryDecodeException {
    JsonObject o = object(value, "");
    long worker = u64(required(o, "worker_id", ""), "worker_id");
    int rank = u32(required(o, "dp_rank", ""), "dp_rank");
    OptionalLong start = optionalU64(o.get("start_event_id"), "start_event_id");
    OptionalLong end = optionalU64(o.get("end_event_id"), "end_event_id");
    JsonValue supports = o.get("supports_tree_dump_failed");
    boolean supportsFailed = false;
    if (supports != null) {
      if (!(supports instanceof JsonBoolean b)) {
        throw wrongType("supports_tree_dump_failed", "a boolean", supports);
      }
      supportsFailed = b.value();
    }
    JsonValue kind = o.get("kind");
    if (kind != null && !(kind instanceof JsonString s && s.value().equals("recovery"))) {
      throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, "kind",
          "only \"recovery\" is supported, got " + describe(kind), null);
    }
    return new WorkerKvQueryRequest(worker, rank, start, end, supportsFailed, WorkerKvQueryRequest.Kind.RECOVERY);
  }

  // ------------------------------------------------------------------ response

  /** The JSON value of {@code response} (externally tagged). */
  public static JsonObject responseJson(WorkerKvQueryResponse response) {
    String tag;
    JsonValue body;
    if (response instanceof WorkerKvQueryResponse.Events e) {
      tag = "Events";
      body = JsonObject.builder().put("events", events(e.events()))
          .put("last_event_id", JsonNumber.ofUnsigned(e.lastEventId())).build();
    } else if (response instanceof WorkerKvQueryResponse.TreeDump d) {
      tag = "TreeDump";
      body = JsonObject.builder().put("events", events(d.events()))
          .put("last_event_id", JsonNumber.ofUnsigned(d.lastEventId()))
          .put("reset_scope", d.resetScope()).build();
    } else if (response instanceof WorkerKvQueryResponse.TreeDumpFailed f) {
      tag = "TreeDumpFailed";
      body = JsonObject.builder().put("last_event_id", JsonNumber.ofUnsigned(f.lastEventId()))
          .put("message", f.message()).build();
    } else if (response instanceof WorkerKvQueryResponse.TooNew t) {
      tag = "TooNew";
      body = JsonObject.builder().put("requested_start", optional(t.requestedStart()))
          .put("requested_end", optional(t.requestedEnd()))
          .put("newest_available", JsonNumber.ofUnsigned(t.newestAvailable())).build();
    } else if (response instanceof WorkerKvQueryResponse.InvalidRange r) {
      tag = "InvalidRange";
      body = JsonObject.builder().put("start_id", optional(r.startId())).put("end_id", optional(r.endId())).build();
    } else {
      tag = "Error";
      body = new JsonString(((WorkerKvQueryResponse.Error) response).message());
    }
    return JsonObject.builder().put(tag, body).build();
  }

  /** The compact JSON text of {@code response}. */
  public static String encodeResponse(WorkerKvQueryResponse response) {
    return Json.write(responseJson(response));
  }

  /** Decodes a response from JSON text. */
  public static WorkerKvQueryResponse decodeResponse(String json) throws WorkerKvQueryDecodeException {
    return decodeResponse(parse(json));
  }

  /** Decodes a response from UTF-8 JSON. */
  public static WorkerKvQueryResponse decodeResponse(byte[] utf8) throws WorkerKvQueryDecodeException {
    return decodeResponse(parse(utf8));
  }

  /** Decodes a response from a parsed JSON value (e.g. the {@code data} member of a response-mux frame). */
  public static WorkerKvQueryResponse decodeResponse(JsonValue value) throws WorkerKvQueryDecodeException {
    JsonObject o = object(value, "");
    if (o.size() != 1) {
      throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, "",
          "a response variant object must have exactly one member, has " + o.size(), null);
    }
    Map.Entry<String, JsonValue> only = o.members().entrySet().iterator().next();
    String tag = only.getKey();
    JsonValue v = only.getValue();
    switch (tag) {
      case "Events" -> {
        JsonObject b = object(v, tag);
        return new WorkerKvQueryResponse.Events(readEvents(required(b, "events", tag), tag + ".events"),
            u64(required(b, "last_event_id", tag), tag + ".last_event_id"));
      }
      case "TreeDump" -> {
        JsonObject b = object(v, tag);
        List<RouterEvent> events = readEvents(required(b, "events", tag), tag + ".events");
        long last = u64(required(b, "last_event_id", tag), tag + ".last_event_id");
        JsonValue scope = b.get("reset_scope");
        String resetScope = scope == null ? "all"
            : scope instanceof JsonString s ? s.value() : Json.write(scope);
        return new WorkerKvQueryResponse.TreeDump(events, last, resetScope);
      }
      case "TreeDumpFailed" -> {
        JsonObject b = object(v, tag);
        return new WorkerKvQueryResponse.TreeDumpFailed(
            u64(required(b, "last_event_id", tag), tag + ".last_event_id"),
            string(required(b, "message", tag), tag + ".message"));
      }
      case "TooNew" -> {
        JsonObject b = object(v, tag);
        return new WorkerKvQueryResponse.TooNew(optionalU64(b.get("requested_start"), tag + ".requested_start"),
            optionalU64(b.get("requested_end"), tag + ".requested_end"),
            u64(required(b, "newest_available", tag), tag + ".newest_available"));
      }
      case "InvalidRange" -> {
        JsonObject b = object(v, tag);
        return new WorkerKvQueryResponse.InvalidRange(optionalU64(b.get("start_id"), tag + ".start_id"),
            optionalU64(b.get("end_id"), tag + ".end_id"));
      }
      case "Error" -> {
        return new WorkerKvQueryResponse.Error(string(v, tag));
      }
      default -> throw new WorkerKvQueryDecodeException(Reason.BAD_VARIANT, "",
            "unknown or unsupported response variant '" + tag + "'", null);
    }
  }

  // ------------------------------------------------------------------ RouterEvent

  /** The JSON object of one {@link RouterEvent} (field names and shapes of runtime-inputs.md §5.7). */
  public static JsonObject routerEventJson(RouterEvent event) {
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

  /** Decodes one {@link RouterEvent} from its JSON value. */
  public static RouterEvent decodeRouterEvent(JsonValue value) throws WorkerKvQueryDecodeException {
    return readRouterEvent(value, "");
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

  private static JsonArray events(List<RouterEvent> events) {
    List<JsonValue> out = new ArrayList<>(events.size());
    for (RouterEvent e : events) {
      out.add(routerEventJson(e));
    }
    return new JsonArray(out);
  }

  private static List<RouterEvent> readEvents(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    JsonArray a = array(v, field);
    List<RouterEvent> out = new ArrayList<>(a.size());
    for (JsonValue e : a.elements()) {
      out.add(readRouterEvent(e, field));
    }
    return out;
  }

  private static RouterEvent readRouterEvent(JsonValue value, String path) throws WorkerKvQueryDecodeException {
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

  // ------------------------------------------------------------------ helpers

  private static JsonValue optional(OptionalLong v) {
    return v.isPresent() ? JsonNumber.ofUnsigned(v.getAsLong()) : JsonNull.INSTANCE;
  }

  private static JsonValue parse(String json) throws WorkerKvQueryDecodeException {
    try {
      return Json.parse(json);
    } catch (JsonException e) {
      throw new WorkerKvQueryDecodeException(Reason.MALFORMED_JSON, "", String.valueOf(e.getMessage()), e);
    }
  }

  private static JsonValue parse(byte[] utf8) throws WorkerKvQueryDecodeException {
    try {
      return Json.parse(utf8);
    } catch (JsonException e) {
      throw new WorkerKvQueryDecodeException(Reason.MALFORMED_JSON, "", String.valueOf(e.getMessage()), e);
    }
  }

  private static JsonObject object(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonObject o) {
      return o;
    }
    throw wrongType(field, "an object", v);
  }

  private static JsonArray array(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonArray a) {
      return a;
    }
    throw wrongType(field, "an array", v);
  }

  private static String string(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonString s) {
      return s.value();
    }
    throw wrongType(field, "a string", v);
  }

  private static JsonValue required(JsonObject o, String name, String path) throws WorkerKvQueryDecodeException {
    JsonValue v = o.get(name);
    if (v == null) {
      throw new WorkerKvQueryDecodeException(Reason.MISSING_FIELD, join(path, name), "required field is absent", null);
    }
    return v;
  }

  private static long u64(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (!(v instanceof JsonNumber n)) {
      throw wrongType(field, "an unsigned integer", v);
    }
    try {
      return n.asUnsignedLong();
    } catch (JsonException e) {
      throw new WorkerKvQueryDecodeException(Reason.OUT_OF_RANGE, field,
          "expected 0..18446744073709551615, got " + n.text(), e);
    }
  }

  private static int u32(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    long x = u64(v, field);
    if (Long.compareUnsigned(x, 0xFFFF_FFFFL) > 0) {
      throw new WorkerKvQueryDecodeException(Reason.OUT_OF_RANGE, field,
          "expected 0..4294967295, got " + Long.toUnsignedString(x), null);
    }
    return (int) x;
  }

  private static OptionalLong optionalU64(@Nullable JsonValue v, String field) throws WorkerKvQueryDecodeException {
    return v == null || v instanceof JsonNull ? OptionalLong.empty() : OptionalLong.of(u64(v, field));
  }

  private static WorkerKvQueryDecodeException wrongType(String field, String expected, JsonValue got) {
    return new WorkerKvQueryDecodeException(Reason.WRONG_TYPE, field, "expected " + expected + ", got " + describe(got),
        null);
  }

  private static String describe(JsonValue v) {
    return v.typeName();
  }

  private static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }
}
