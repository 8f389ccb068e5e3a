package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Byte-level golden vectors for the frames and JSON shapes of plugins-wire §1.3 / §1.4, written from the layouts. */
class TcpFramesGoldenTest {
  static final HexFormat HEX = HexFormat.of();
  static final int MAX = TcpRequestPlaneConfig.DEFAULT_MAX_MESSAGE_BYTES;

  static byte[] hex(String s) {
    return HEX.parseHex(s.replace(" ", ""));
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void sentinelFrameIsTheSpecVector() {
    // plugins-wire §1.3 computed example
    assertThat(HEX.formatHex(TwoPart.headerOnly(ControlJson.Control.SENTINEL.json()).encode()))
        .isEqualTo("000000000000000a" + "0000000000000000" + "0000000000000000" + "2273656e74696e656c22");
  }

  @Test
  void twoPartLayoutIsBigEndianLengthsZeroChecksumHeaderBody() throws Exception {
    byte[] wire = hex("0000000000000002 0000000000000003 0000000000000000 6162 78797a");
    assertThat(new TwoPart(utf8("ab"), utf8("xyz")).encode()).isEqualTo(wire);
    assertThat(TwoPart.decode(wire, MAX)).isEqualTo(new TwoPart(utf8("ab"), utf8("xyz")));
    assertThat(TwoPart.read(new ByteArrayInputStream(wire), MAX).kind()).isEqualTo(TwoPart.Kind.HEADER_AND_DATA);
    // a debug build's non-zero checksum is accepted (release receivers ignore it)
    byte[] debug = hex("0000000000000002 0000000000000000 1234567890abcdef 6162");
    assertThat(TwoPart.decode(debug, MAX).kind()).isEqualTo(TwoPart.Kind.HEADER_ONLY);
    assertThat(TwoPart.decode(hex("0000000000000000 0000000000000001 0000000000000000 7a"), MAX).kind())
        .isEqualTo(TwoPart.Kind.DATA_ONLY);
    assertThat(new TwoPart(new byte[0], new byte[0]).kind()).isEqualTo(TwoPart.Kind.EMPTY);
  }

  @Test
  void twoPartLimitsAndTruncationAreTyped() {
    // header_len 32 MiB + 1: refused from the prefix alone
    assertThat(wireError(hex("0000000002000001 0000000000000000 0000000000000000"))).isEqualTo(TcpWireException.Reason.OVERSIZE);
    // each part within the limit, their sum above it
    assertThat(wireError(hex("0000000001000000 0000000001000001 0000000000000000"))).isEqualTo(TcpWireException.Reason.OVERSIZE);
    // u64 lengths that would overflow a signed sum
    assertThat(wireError(hex("8000000000000000 8000000000000000 0000000000000000"))).isEqualTo(TcpWireException.Reason.OVERSIZE);
    assertThat(wireError(hex("000000000000000a 0000000000000000 0000000000000000 2273"))).isEqualTo(TcpWireException.Reason.TRUNCATED);
    assertThat(wireError(hex("0000000000000001"))).isEqualTo(TcpWireException.Reason.TRUNCATED);
    assertThatThrownBy(() -> TwoPart.read(new ByteArrayInputStream(new byte[0]), MAX)).isInstanceOf(EOFException.class);
  }

  static TcpWireException.Reason wireError(byte[] wire) {
    try {
      TwoPart.read(new ByteArrayInputStream(wire), MAX);
    } catch (TcpWireException e) {
      return e.reason();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("no error for " + HEX.formatHex(wire));
  }

  @Test
  void requestFrameLayout() throws Exception {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("k", "v");
    RequestFrame f = new RequestFrame("ab", headers, new byte[] {1, 2});
    byte[] wire = hex("0002 6162 0009 7b226b223a2276227d 00000002 0102");
    assertThat(f.encode(MAX)).isEqualTo(wire);
    assertThat(RequestFrame.read(new ByteArrayInputStream(wire), MAX)).isEqualTo(f);
    // empty headers are written as {} and an empty headers field reads as none
    assertThat(new RequestFrame("", Map.of(), new byte[0]).encode(MAX)).isEqualTo(hex("0000 0002 7b7d 00000000"));
    assertThat(RequestFrame.read(new ByteArrayInputStream(hex("0001 78 0000 00000000")), MAX).headers()).isEmpty();
  }

  @Test
  void requestFrameLimits() {
    assertThatThrownBy(() -> new RequestFrame("x".repeat(65_536), Map.of(), new byte[0]).encode(MAX))
        .isInstanceOf(TcpWireException.class).hasMessageContaining("65535");
    assertThatThrownBy(() -> new RequestFrame("p", Map.of(), new byte[2048]).encode(1024))
        .isInstanceOf(TcpWireException.class).hasMessageContaining("exceeds the limit of 1024 bytes");
    assertThatThrownBy(() -> RequestFrame.read(new ByteArrayInputStream(hex("0001 78 0000 02000001")), MAX))
        .isInstanceOf(TcpWireException.class).extracting(e -> ((TcpWireException) e).reason())
        .isEqualTo(TcpWireException.Reason.OVERSIZE);
    assertThatThrownBy(() -> RequestFrame.read(new ByteArrayInputStream(hex("0001 78 0002 5b5d 00000000")), MAX))
        .isInstanceOf(TcpWireException.class).hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> RequestFrame.read(new ByteArrayInputStream(hex("0001 ff 0000 00000000")), MAX))
        .isInstanceOf(TcpWireException.class).hasMessageContaining("not UTF-8");
  }

  @Test
  void ackLayout() throws Exception {
    assertThat(AckFrame.encode("")).isEqualTo(hex("00000000"));
    byte[] overloaded = AckFrame.encode(AckFrame.OVERLOADED_TEXT);
    assertThat(HEX.formatHex(overloaded, 0, 4)).isEqualTo("00000025");
    assertThat(AckFrame.read(new ByteArrayInputStream(overloaded), MAX)).isEqualTo("Server overloaded: worker at capacity");
    assertThat(AckFrame.read(new ByteArrayInputStream(hex("00000000")), MAX)).isEmpty();
    assertThatThrownBy(() -> AckFrame.read(new ByteArrayInputStream(hex("00000005 6869")), MAX))
        .isInstanceOf(TcpWireException.class);
  }

  @Test
  void requestControlMessageInSerdeOrder() throws Exception {
    ControlJson.StreamConnectionInfo info = new ControlJson.StreamConnectionInfo("127.0.0.1:5000", "sub", "id-1", "response");
    assertThat(new String(ControlJson.requestControlMessage("id-1", "json", info, OptionalLong.of(12)), StandardCharsets.UTF_8))
        .isEqualTo("{\"id\":\"id-1\",\"request_type\":\"single_in\",\"response_type\":\"many_out\",\"payload_codec\":\"json\","
            + "\"connection_info\":{\"transport\":\"tcp_server\",\"info\":\"{\\\"address\\\":\\\"127.0.0.1:5000\\\","
            + "\\\"subject\\\":\\\"sub\\\",\\\"context\\\":\\\"id-1\\\",\\\"stream_type\\\":\\\"response\\\"}\"},"
            + "\"frontend_send_ts_ns\":12}");
    assertThat(new String(ControlJson.requestControlMessage("i", "json", info, OptionalLong.empty()), StandardCharsets.UTF_8))
        .doesNotContain("frontend_send_ts_ns").doesNotContain("metadata");
    // decoding: payload_codec absent means json (serde default); unknown members ignored
    ControlJson.ControlMessage cm = ControlJson.parseControlMessage(utf8("{\"id\":\"a\",\"request_type\":\"single_in\","
        + "\"response_type\":\"many_out\",\"connection_info\":{\"transport\":\"tcp_server\",\"info\":\"{}\"},\"metadata\":{\"x\":\"y\"}}"));
    assertThat(cm.payloadCodec()).isEqualTo("json");
    assertThat(cm.transport()).isEqualTo("tcp_server");
    assertThat(ControlJson.parseConnectionInfo(infoJson(info))).isEqualTo(info);
  }

  static String infoJson(ControlJson.StreamConnectionInfo info) {
    return dev.kvrelay.api.json.Json.write(ControlJson.connectionInfoJson(info));
  }

  @Test
  void responseSocketShapes() throws Exception {
    assertThat(ControlJson.handshake("u-1")).isEqualTo(utf8("{\"subject\":\"u-1\",\"stream_type\":\"response\"}"));
    assertThat(ControlJson.parseHandshake(utf8("{\"subject\":\"u-1\",\"stream_type\":\"response\"}"))).isEqualTo("u-1");
    assertThatThrownBy(() -> ControlJson.parseHandshake(utf8("{\"subject\":\"u-1\",\"stream_type\":\"request\"}")))
        .isInstanceOf(TcpWireException.class);
    assertThat(ControlJson.prologue(null)).isEqualTo(utf8("{\"error\":null}"));
    assertThat(ControlJson.prologue("boom")).isEqualTo(utf8("{\"error\":\"boom\"}"));
    assertThat(ControlJson.parsePrologue(utf8("{\"error\":null}"))).isNull();
    assertThat(ControlJson.parsePrologue(utf8("{\"error\":\"x\",\"typed_error\":{\"kind\":\"Whatever\"}}"))).isEqualTo("x");
    assertThat(ControlJson.item(JsonObject.builder().put("a", JsonNumber.of(1)).build()))
        .isEqualTo(utf8("{\"data\":{\"a\":1},\"complete_final\":false}"));
    assertThat(ControlJson.finalItem()).isEqualTo(utf8("{\"complete_final\":true}"));
    assertThat(ControlJson.parseItem(utf8("{\"complete_final\":true}"), MAX)).isEqualTo(new ControlJson.StreamItem(null, true));
    assertThatThrownBy(() -> ControlJson.parseItem(utf8("{\"data\":1}"), MAX)).isInstanceOf(TcpWireException.class);
    assertThat(ControlJson.Control.STOP.json()).isEqualTo(utf8("\"stop\""));
    assertThat(ControlJson.Control.KILL.json()).isEqualTo(utf8("\"kill\""));
    assertThat(ControlJson.parseControl(utf8("\"sentinel\""))).isEqualTo(ControlJson.Control.SENTINEL);
    assertThat(ControlJson.parseControl(utf8("\"other\""))).isNull();
  }
}
