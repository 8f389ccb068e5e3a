package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonLimits;
import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the JSON shapes of the TCP request plane in serde's field order
 * (plugins-wire §1.4): the request control message and its {@code tcp_server} connection info, the
 * call-home handshake, the response-stream prologue, the {@code NetworkStreamWrapper} items and the
 * {@code stop} / {@code kill} / {@code sentinel} control strings.
 */
public final class ControlJson {
  /** The response transport name main speaks (plugins-wire §1.1). */
  public static final String TRANSPORT_TCP_SERVER = "tcp_server";
  /** The request control message's header cap, {@code CONTROL_MESSAGE_MAX_BYTES}: 128 KiB. */
  public static final int CONTROL_MESSAGE_MAX_BYTES = 128 * 1024;
  /** {@code stream_type} of a response stream. */
  public static final String STREAM_TYPE_RESPONSE = "response";

  private ControlJson() {}

  /** Immutable and thread-safe: the control strings a response socket carries (snake_case enum). */
  public enum Control {
    /** Graceful cancel, caller → worker. */
    STOP("stop"),
    /** Hard cancel, caller → worker. */
    KILL("kill"),
    /** End of stream, worker → caller, after {@code complete_final}. */
    SENTINEL("sentinel");

    private final String wire;

    Control(String wire) {
      this.wire = wire;
    }

    /** The JSON text, e.g. {@code "stop"} with the quotes. */
    public byte[] json() {
      return Json.writeUtf8(new JsonString(wire));
    }
  }

  /**
   * Immutable and thread-safe: a decoded {@code RequestControlMessage} with a {@code tcp_server}-shaped
   * connection info (still unvalidated: the worker side checks it).
   *
   * @param id the request id
   * @param requestType {@code single_in} or {@code many_in}
   * @param responseType {@code many_out}
   * @param payloadCodec {@code json} (serde default when absent) or {@code msgpack}
   * @param transport {@code connection_info.transport}
   * @param info {@code connection_info.info} (a JSON string)
   */
  public record ControlMessage(String id, String requestType, String responseType, String payloadCodec,
      String transport, String info) {}

  /**
   * Immutable and thread-safe: {@code TcpStreamConnectionInfo}.
   *
   * @param address {@code ip:port} of the caller's response listener ({@code [v6]:port})
   * @param subject the subject UUID the caller registered
   * @param context must equal the control message id
   * @param streamType must be {@code response}
   */
  public record StreamConnectionInfo(String address, String subject, String context, String streamType) {}

  /**
   * Immutable and thread-safe: one {@code NetworkStreamWrapper}.
   *
   * @param data the item, or {@code null} when absent
   * @param completeFinal true on the end-of-stream item
   */
  public record StreamItem(@Nullable JsonValue data, boolean completeFinal) {}

  // ------------------------------------------------------------------ request envelope header

  /**
   * The control message of a single-in request (serde order; {@code metadata} omitted as empty).
   *
   * @param frontendSendTsNs unix nanoseconds, or empty to omit the field
   */
  public static byte[] requestControlMessage(String id, String payloadCodec, StreamConnectionInfo info,
      OptionalLong frontendSendTsNs) {
    JsonObject.Builder b = JsonObject.builder()
        .put("id", id)
        .put("request_type", "single_in")
        .put("response_type", "many_out")
        .put("payload_codec", payloadCodec)
        .put("connection_info", JsonObject.builder()
            .put("transport", TRANSPORT_TCP_SERVER)
            .put("info", Json.write(connectionInfoJson(info)))
            .build());
    if (frontendSendTsNs.isPresent()) {
      b.put("frontend_send_ts_ns", JsonNumber.ofUnsigned(frontendSendTsNs.getAsLong()));
    }
    return Json.writeUtf8(b.build());
  }

  /** The JSON of a connection info, fields in serde order. */
  public static JsonObject connectionInfoJson(StreamConnectionInfo info) {
    return JsonObject.builder().put("address", info.address()).put("subject", info.subject())
        .put("context", info.context()).put("stream_type", info.streamType()).build();
  }

  /** Decodes a request control message (unknown members ignored; {@code payload_codec} absent ⇒ json). */
  public static ControlMessage parseControlMessage(byte[] header) throws TcpWireException {
    if (header.length > CONTROL_MESSAGE_MAX_BYTES) {
      throw new TcpWireException(TcpWireException.Reason.OVERSIZE,
          "request control message of " + header.length + " bytes exceeds " + CONTROL_MESSAGE_MAX_BYTES);
    }
    JsonObject o = object(parse(header, CONTROL_MESSAGE_MAX_BYTES), "request control message");
    JsonObject ci = object(required(o, "connection_info"), "connection_info");
    JsonValue codec = o.get("payload_codec");
    return new ControlMessage(string(o, "id"), string(o, "request_type"), string(o, "response_type"),
        codec == null ? "json" : string(o, "payload_codec"), string(ci, "transport"), string(ci, "info"));
  }

  /** Decodes a {@code TcpStreamConnectionInfo} from the {@code info} string. */
  public static StreamConnectionInfo parseConnectionInfo(String info) throws TcpWireException {
    JsonObject o = object(parse(info.getBytes(StandardCharsets.UTF_8), CONTROL_MESSAGE_MAX_BYTES), "connection info");
    return new StreamConnectionInfo(string(o, "address"), string(o, "subject"), string(o, "context"),
        string(o, "stream_type"));
  }

  // ------------------------------------------------------------------ response socket

  /** {@code CallHomeHandshake}: {@code {"subject":…,"stream_type":"response"}}. */
  public static byte[] handshake(String subject) {
    return Json.writeUtf8(JsonObject.builder().put("subject", subject).put("stream_type", STREAM_TYPE_RESPONSE).build());
  }

  /** The subject of a {@code CallHomeHandshake}; requires {@code stream_type} {@code response}. */
  public static String parseHandshake(byte[] header) throws TcpWireException {
    JsonObject o = object(parse(header, CONTROL_MESSAGE_MAX_BYTES), "call-home handshake");
    String type = string(o, "stream_type");
    if (!type.equals(STREAM_TYPE_RESPONSE)) {
      throw malformed("call-home handshake stream_type is '" + type + "', not 'response'");
    }
    return string(o, "subject");
  }

  /** {@code ResponseStreamPrologue}: {@code {"error":null}} or {@code {"error":"…"}}. */
  public static byte[] prologue(@Nullable String error) {
    return Json.writeUtf8(JsonObject.builder()
        .put("error", error == null ? JsonNull.INSTANCE : new JsonString(error)).build());
  }

  /**
   * The error of a prologue, or {@code null} on success ({@code typed_error} and unknown members ignored;
   * an absent {@code error} counts as success, as serde's {@code Option} default reads it).
   */
  public static @Nullable String parsePrologue(byte[] header) throws TcpWireException {
    JsonObject o = object(parse(header, CONTROL_MESSAGE_MAX_BYTES), "response-stream prologue");
    JsonValue e = o.get("error");
    if (e == null || e instanceof JsonNull) {
      return null;
    }
    if (e instanceof JsonString s) {
      return s.value();
    }
    throw malformed("prologue error is a " + e.typeName() + ", not a string or null");
  }

  /** A data item: {@code {"data":…,"complete_final":false}}. */
  public static byte[] item(JsonValue data) {
    return Json.writeUtf8(JsonObject.builder().put("data", data).put("complete_final", false).build());
  }

  /** The end item: {@code {"complete_final":true}} ({@code data} omitted as None). */
  public static byte[] finalItem() {
    return Json.writeUtf8(JsonObject.builder().put("complete_final", true).build());
  }

  /** Decodes a {@code NetworkStreamWrapper}; {@code complete_final} is required. */
  public static StreamItem parseItem(byte[] body, long maxMessageBytes) throws TcpWireException {
    JsonObject o = object(parse(body, maxMessageBytes), "stream item");
    JsonValue f = required(o, "complete_final");
    if (!(f instanceof JsonBoolean b)) {
      throw malformed("complete_final is a " + f.typeName() + ", not a boolean");
    }
    JsonValue data = o.get("data");
    return new StreamItem(data instanceof JsonNull ? null : data, b.value());
  }

  /** The control string of a header-only frame, or {@code null} if it is none of them. */
  public static @Nullable Control parseControl(byte[] header) {
    JsonValue v;
    try {
      v = Json.parse(header);
    } catch (JsonException e) {
      return null;
    }
    if (v instanceof JsonString s) {
      for (Control c : Control.values()) {
        if (c.wire.equals(s.value())) {
          return c;
        }
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ helpers

  static JsonValue parse(byte[] utf8, long maxBytes) throws TcpWireException {
    try {
      int max = (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxBytes));
      return Json.parse(utf8, new JsonLimits(JsonLimits.DEFAULT_MAX_DEPTH, Math.max(max, utf8.length)));
    } catch (JsonException e) {
      throw new TcpWireException(TcpWireException.Reason.MALFORMED, "invalid JSON: " + e.getMessage(), e);
    }
  }

  static String utf8(byte[] bytes, String what) throws TcpWireException {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new TcpWireException(TcpWireException.Reason.MALFORMED, what + " is not UTF-8", e);
    }
  }

  private static JsonObject object(JsonValue v, String what) throws TcpWireException {
    if (v instanceof JsonObject o) {
      return o;
    }
    throw malformed(what + " is a JSON " + v.typeName() + ", not an object");
  }

  private static JsonValue required(JsonObject o, String name) throws TcpWireException {
    JsonValue v = o.get(name);
    if (v == null) {
      throw malformed("missing member '" + name + "'");
    }
    return v;
  }

  private static String string(JsonObject o, String name) throws TcpWireException {
    JsonValue v = required(o, name);
    if (v instanceof JsonString s) {
      return s.value();
    }
    throw malformed("member '" + name + "' is a " + v.typeName() + ", not a string");
  }

  private static TcpWireException malformed(String message) {
    return new TcpWireException(TcpWireException.Reason.MALFORMED, Objects.requireNonNull(message));
  }
}
