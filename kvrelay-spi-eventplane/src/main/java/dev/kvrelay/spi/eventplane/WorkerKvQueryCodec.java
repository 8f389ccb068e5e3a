package dev.kvrelay.spi.eventplane;

import static dev.kvrelay.spi.eventplane.QueryJson.describe;
import static dev.kvrelay.spi.eventplane.QueryJson.object;
import static dev.kvrelay.spi.eventplane.QueryJson.optional;
import static dev.kvrelay.spi.eventplane.QueryJson.optionalU64;
import static dev.kvrelay.spi.eventplane.QueryJson.parse;
import static dev.kvrelay.spi.eventplane.QueryJson.required;
import static dev.kvrelay.spi.eventplane.QueryJson.string;
import static dev.kvrelay.spi.eventplane.QueryJson.u32;
import static dev.kvrelay.spi.eventplane.QueryJson.u64;
import static dev.kvrelay.spi.eventplane.QueryJson.wrongType;
import static dev.kvrelay.spi.eventplane.RouterEventJson.events;
import static dev.kvrelay.spi.eventplane.RouterEventJson.readEvents;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.eventplane.WorkerKvQueryDecodeException.Reason;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

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
    return RouterEventJson.routerEventJson(event);
  }

  /** Decodes one {@link RouterEvent} from its JSON value. */
  public static RouterEvent decodeRouterEvent(JsonValue value) throws WorkerKvQueryDecodeException {
    return RouterEventJson.readRouterEvent(value, "");
  }
}
