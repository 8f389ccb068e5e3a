package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable and thread-safe (the payload is copied in and out): one request frame to a worker,
 * {@code TcpRequestMessage}, and its codec (plugins-wire §1.3):
 * {@code endpoint_path_len u16 BE · endpoint_path · headers_len u16 BE · headers (JSON object of strings) ·
 * payload_len u32 BE · payload (a TwoPart request envelope)}.
 *
 * @param endpointPath the path after the first {@code /} of the transport string, verbatim (UTF-8 ≤ 65535 bytes)
 * @param headers string headers in insertion order (their JSON ≤ 65535 bytes)
 * @param payload the TwoPart-encoded request envelope
 */
@SuppressWarnings("ArrayRecordComponent") // the payload is copied in and out; equals/hashCode/toString use its contents
public record RequestFrame(String endpointPath, Map<String, String> headers, byte[] payload) {

  /** Copies the parts. */
  public RequestFrame {
    Objects.requireNonNull(endpointPath, "endpointPath");
    headers = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(headers, "headers")));
    payload = Objects.requireNonNull(payload, "payload").clone();
  }

  @Override
  public byte[] payload() {
    return payload.clone();
  }

  /**
   * The encoded bytes.
   *
   * @throws TcpWireException OVERSIZE if the path or the headers exceed 65535 bytes or the payload exceeds
   *     {@code maxMessageBytes}
   */
  public byte[] encode(long maxMessageBytes) throws TcpWireException {
    byte[] path = endpointPath.getBytes(StandardCharsets.UTF_8);
    JsonObject.Builder h = JsonObject.builder();
    headers.forEach(h::put);
    byte[] hdr = Json.writeUtf8(h.build());
    if (path.length > 0xFFFF) {
      throw new TcpWireException(TcpWireException.Reason.OVERSIZE,
          "endpoint path of " + path.length + " bytes exceeds 65535");
    }
    if (hdr.length > 0xFFFF) {
      throw new TcpWireException(TcpWireException.Reason.OVERSIZE,
          "request headers of " + hdr.length + " bytes exceed 65535");
    }
    if (payload.length > maxMessageBytes) {
      throw new TcpWireException(TcpWireException.Reason.OVERSIZE,
          "request payload of " + payload.length + " bytes exceeds the limit of " + maxMessageBytes + " bytes");
    }
    byte[] out = new byte[2 + path.length + 2 + hdr.length + 4 + payload.length];
    int at = 0;
    WireIo.putU16(out, at, path.length);
    at += 2;
    System.arraycopy(path, 0, out, at, path.length);
    at += path.length;
    WireIo.putU16(out, at, hdr.length);
    at += 2;
    System.arraycopy(hdr, 0, out, at, hdr.length);
    at += hdr.length;
    WireIo.putU32(out, at, payload.length);
    at += 4;
    System.arraycopy(payload, 0, out, at, payload.length);
    return out;
  }

  /**
   * Reads one frame.
   *
   * @throws java.io.EOFException if the stream ends cleanly before the frame starts
   * @throws TcpWireException OVERSIZE if {@code payload_len} exceeds {@code maxMessageBytes} (nothing more is
   *     read), TRUNCATED if the stream ends inside the frame, MALFORMED if the path is not UTF-8 or the headers
   *     are not a JSON object of strings
   */
  public static RequestFrame read(InputStream in, long maxMessageBytes) throws IOException, TcpWireException {
    byte[] pathLen = WireIo.readExactly(in, 2, true, "a request frame");
    byte[] path = WireIo.readExactly(in, WireIo.u16(pathLen, 0), false, "the endpoint path");
    byte[] hdrLen = WireIo.readExactly(in, 2, false, "the headers length");
    byte[] hdr = WireIo.readExactly(in, WireIo.u16(hdrLen, 0), false, "the headers");
    byte[] payLen = WireIo.readExactly(in, 4, false, "the payload length");
    long n = WireIo.u32(payLen, 0);
    if (n > maxMessageBytes) {
      throw new TcpWireException(TcpWireException.Reason.OVERSIZE,
          "request payload of " + n + " bytes exceeds the limit of " + maxMessageBytes + " bytes");
    }
    byte[] payload = WireIo.readExactly(in, (int) n, false, "the payload");
    return new RequestFrame(ControlJson.utf8(path, "endpoint path"), headers(hdr), payload);
  }

  private static Map<String, String> headers(byte[] json) throws TcpWireException {
    Map<String, String> out = new LinkedHashMap<>();
    if (json.length == 0) {
      return out;
    }
    JsonValue v;
    try {
      v = Json.parse(json);
    } catch (JsonException e) {
      throw new TcpWireException(TcpWireException.Reason.MALFORMED, "request headers are not JSON: " + e.getMessage(), e);
    }
    if (!(v instanceof JsonObject o)) {
      throw new TcpWireException(TcpWireException.Reason.MALFORMED, "request headers are not a JSON object");
    }
    for (Map.Entry<String, JsonValue> e : o.members().entrySet()) {
      if (!(e.getValue() instanceof JsonString s)) {
        throw new TcpWireException(TcpWireException.Reason.MALFORMED,
            "request header '" + e.getKey() + "' is not a string");
      }
      out.put(e.getKey(), s.value());
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequestFrame f && endpointPath.equals(f.endpointPath) && headers.equals(f.headers)
        && Arrays.equals(payload, f.payload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(endpointPath, headers, Arrays.hashCode(payload));
  }

  @Override
  public String toString() {
    return "RequestFrame[" + endpointPath + ", headers=" + headers + ", payload=" + payload.length + " B]";
  }
}
