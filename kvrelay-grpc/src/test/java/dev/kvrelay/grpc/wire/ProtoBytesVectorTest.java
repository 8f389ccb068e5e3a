package dev.kvrelay.grpc.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** vectors.md §9 (protobuf bytes, computed from the spec) against the generated messages and the codec. */
class ProtoBytesVectorTest {

  private static final HexFormat HEX = HexFormat.ofDelimiter(" ").withUpperCase();

  @Test
  void relayInfoRequestSerializesToFd07ThenMarkerLittleEndian() {
    byte[] bytes = WireCodec.relayInfoRequest().toByteArray();
    assertThat(HEX.formatHex(bytes)).isEqualTo("FD 07 31 52 56 4B");
  }

  @Test
  void relayInfoResponseStartsWith0801() {
    byte[] bytes = WireCodec.relayInfo(new RelayIdentity(0x0102030405060708L, 0x7FFF_FFFF_FFFF_FFFFL)).toByteArray();
    assertThat(HEX.formatHex(Arrays.copyOf(bytes, 2))).isEqualTo("08 01");
  }

  @Test
  void contractMarkerOnTheWireIsKvr1ReadBigEndian() {
    byte[] bytes = WireCodec.relayInfo(new RelayIdentity(1, 2)).toByteArray();
    // the marker is field 127, the last field: tag FD 07, then 31 52 56 4B
    assertThat(HEX.formatHex(Arrays.copyOfRange(bytes, bytes.length - 6, bytes.length)))
        .isEqualTo("FD 07 31 52 56 4B");
    assertThat(new String(new byte[] {0x4B, 0x56, 0x52, 0x31}, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo("KVR1");
    assertThat(WireCodec.CONTRACT_MARKER_BITS).isEqualTo(0x4B565231);
  }

  @Test
  void relayInfoRequestBytesParseBackToTheMarker() throws Exception {
    RelayInfoRequest parsed = RelayInfoRequest.parseFrom(HEX.parseHex("FD 07 31 52 56 4B"));
    assertThat(WireCodec.markerMatches(parsed.getContractMarker())).isTrue();
    assertThat(WireCodec.markerMatches(RelayInfoRequest.getDefaultInstance().getContractMarker())).isFalse();
  }

  @Test
  void relayInfoFromSpecBytesDecodesToAValidEnvelope() throws Exception {
    // 08 01 | 12 12 09 <drt LE> 11 <incarnation LE> | FD 07 31 52 56 4B
    byte[] bytes = HEX.parseHex("08 01 12 12 09 08 07 06 05 04 03 02 01 11 FF FF FF FF FF FF FF 7F FD 07 31 52 56 4B");
    WireEnvelope envelope = WireCodec.fromProto(RelayInfo.parseFrom(bytes));
    assertThat(envelope.valid()).isTrue();
    assertThat(envelope.relay()).isEqualTo(new RelayIdentity(0x0102030405060708L, 0x7FFF_FFFF_FFFF_FFFFL));
  }
}
