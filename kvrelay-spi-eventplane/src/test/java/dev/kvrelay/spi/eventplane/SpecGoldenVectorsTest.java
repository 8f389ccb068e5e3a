package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The golden vectors of plugins-wire §2.3 (computed upstream-side with rmp-serde 1.1.1), one named test
 * each, hex copied verbatim from the spec: the encoder must write exactly these bytes where the model can
 * express the value, and the decoder must read every vector, including the keys the model does not carry
 * ({@code session_id} in V4) and the ActiveLoad version without {@code scheduler_load_scope} (L1).
 */
class SpecGoldenVectorsTest {

  static final String V1 = "84a9776f726b65725f6964cf694d9ae01eb824cbac73746f726167655f74696572a6646576696365b0"
      + "7265736964656e63795f646f6d61696ea6776f726b6572a56576656e7483a86576656e745f69642aa46461746181a673746f"
      + "72656483ab706172656e745f68617368c0ae73746172745f706f736974696f6ec0a6626c6f636b739183aa626c6f636b5f6861"
      + "7368cf891087b8e3b70cb1ab746f6b656e735f68617368cfcb38e4d7fb2dca5cad6d6d5f65787472615f696e666fc0a764705f"
      + "72616e6b00";
  static final String V2 = "84a9776f726b65725f696401ac73746f726167655f74696572a6646576696365b07265736964656e63"
      + "795f646f6d61696ea6776f726b6572a56576656e7483a86576656e745f696402a464617461a7636c6561726564a764705f7261"
      + "6e6b00";
  static final String V3 = "83a9776f726b65725f696401ac73746f726167655f74696572ab686f73745f70696e6e6564a56576656e"
      + "7483a86576656e745f6964cd012ca46461746181a772656d6f76656481ac626c6f636b5f6861736865739305ce00011170cfff"
      + "ffffffffffffffa764705f72616e6b03";
  static final String V4_SESSION_ID = "aa73657373696f6e5f6964a27331"; // "session_id": "s1"
  static final String V4 = "85a9776f726b65725f696401ac73746f726167655f74696572a6646576696365b07265736964656e63"
      + "795f646f6d61696ea6776f726b6572a56576656e7483a86576656e745f69642ba46461746181a673746f72656483ab706172"
      + "656e745f68617368cfab54a98ceb1f0ad2ae73746172745f706f736974696f6e04a6626c6f636b739183aa626c6f636b5f68"
      + "61736801ab746f6b656e735f6861736802ad6d6d5f65787472615f696e666f81aa6d6d5f6f626a656374739182a76d6d5f68"
      + "6173682aa76f66667365747391920003a764705f72616e6b01" + V4_SESSION_ID;
  static final String L1 = "85a9776f726b65725f6964cf694d9ae01eb824cba764705f72616e6b00b46163746976655f6465636f64"
      + "655f626c6f636b73c0b56163746976655f70726566696c6c5f746f6b656e73c0ae6b765f757365645f626c6f636b73cc80";
  static final String E1_HEADER = "85ac7075626c69736865725f6964cf000ffffffffffe11a873657175656e636500ac7075626c"
      + "69736865645f6174cf0000018bcfe56800a5746f706963a96b762d6576656e7473a77061796c6f6164c4c6";
  static final String E1 = E1_HEADER + V1;

  static final long WORKER = Long.parseUnsignedLong("7587891234567890123");
  static final long PUBLISHER = 4503599627370001L;

  static RouterEvent v1() {
    return new RouterEvent(WORKER, StorageTier.DEVICE, ResidencyDomain.WORKER, 42, 0,
        new KvEventData.Stored(OptionalLong.empty(), OptionalLong.empty(), List.of(StoredBlock.of(
            Long.parseUnsignedLong("9876543210987654321"), Long.parseUnsignedLong("14643705804678351452")))));
  }

  static RouterEvent v2() {
    return new RouterEvent(1, StorageTier.DEVICE, ResidencyDomain.WORKER, 2, 0, KvEventData.Cleared.INSTANCE);
  }

  static RouterEvent v3() {
    return new RouterEvent(1, StorageTier.HOST_PINNED, ResidencyDomain.ABSENT, 300, 3,
        KvEventData.Removed.of(5, 70_000, -1L));
  }

  static RouterEvent v4() {
    MmExtraInfo mm = new MmExtraInfo(List.of(new MmExtraInfo.MmObject(42, List.of(new MmExtraInfo.TokenRange(0, 3)))));
    return new RouterEvent(1, StorageTier.DEVICE, ResidencyDomain.WORKER, 43, 1,
        new KvEventData.Stored(OptionalLong.of(Long.parseUnsignedLong("12345678901234567890")), OptionalLong.of(4),
            List.of(new StoredBlock(1, 2, mm))));
  }

  static ActiveLoad l1() {
    return new ActiveLoad(WORKER, 0, OptionalLong.empty(), OptionalLong.empty(), null, OptionalLong.of(128));
  }

  static EventEnvelope e1() {
    return new EventEnvelope(PUBLISHER, 0, 1_700_000_000_000L, EventTopics.KV_EVENTS);
  }

  @Test
  void vectorLengthsAreTheSpecs() {
    assertThat(Hex.bytes(V1)).hasSize(198);
    assertThat(Hex.bytes(V2)).hasSize(95);
    assertThat(Hex.bytes(V3)).hasSize(109);
    assertThat(Hex.bytes(V4)).hasSize(230);
    assertThat(Hex.bytes(L1)).hasSize(91);
    assertThat(Hex.bytes(E1)).hasSize(279);
  }

  @Test
  void v1StoredWorkerDomain() throws Exception {
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(v1()))).isEqualTo(V1);
    assertThat(EventPlaneCodec.decodeRouterEvent(Hex.bytes(V1))).isEqualTo(v1());
  }

  @Test
  void v2ClearedAsBareString() throws Exception {
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(v2()))).isEqualTo(V2);
    assertThat(EventPlaneCodec.decodeRouterEvent(Hex.bytes(V2))).isEqualTo(v2());
  }

  @Test
  void v3RemovedLegacyHostPinned() throws Exception {
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(v3()))).isEqualTo(V3);
    RouterEvent e = EventPlaneCodec.decodeRouterEvent(Hex.bytes(V3));
    assertThat(e).isEqualTo(v3());
    assertThat(e.residencyDomain().kind()).isEqualTo(ResidencyDomain.Kind.ABSENT);
    assertThat(((KvEventData.Removed) e.data()).blockHashes()).containsExactly(5, 70_000, -1L);
  }

  @Test
  void v4StoredWithMultimodalInfoAndSessionId() throws Exception {
    // Decoding ignores session_id (plugins-wire §2.2: optional, omitted when None).
    assertThat(EventPlaneCodec.decodeRouterEvent(Hex.bytes(V4))).isEqualTo(v4());
    // The model carries no session_id, so the encoder writes V4 without that key: 4 entries, same order.
    String withoutSession = "84" + V4.substring(2, V4.length() - V4_SESSION_ID.length());
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(v4()))).isEqualTo(withoutSession);
  }

  @Test
  void l1ActiveLoadWithoutSchedulerLoadScope() throws Exception {
    assertThat(EventPlaneCodec.decodeActiveLoad(Hex.bytes(L1))).isEqualTo(l1());
    // Decision (runtime-inputs §8, plugins-wire §2.2 "tolerate either"): the encoder writes the newer
    // 6-key form with scheduler_load_scope nil before kv_used_blocks; it differs from L1 by that key only.
    String scopeNil = "b4" + Hex.of("scheduler_load_scope".getBytes(java.nio.charset.StandardCharsets.US_ASCII)) + "c0";
    int usedAt = L1.indexOf("ae6b765f757365645f626c6f636b73");
    String sixKeys = "86" + L1.substring(2, usedAt) + scopeNil + L1.substring(usedAt);
    assertThat(Hex.of(EventPlaneCodec.encodeActiveLoad(l1()))).isEqualTo(sixKeys);
    assertThat(EventPlaneCodec.decodeActiveLoad(Hex.bytes(sixKeys))).isEqualTo(l1());
  }

  @Test
  void e1EnvelopeAroundV1() throws Exception {
    EventMessage m = new EventMessage.KvEvent(e1(), v1());
    assertThat(Hex.of(EventPlaneCodec.encodeMessage(m))).isEqualTo(E1);
    assertThat(Hex.of(EventPlaneCodec.encodeEnvelope(e1(), Hex.bytes(V1)))).isEqualTo(E1);
    assertThat(EventPlaneCodec.decodeMessage(Hex.bytes(E1), EventTopics.KV_EVENTS)).isEqualTo(m);
    // ZMQ frame 3: version 0x01, u32 BE length 0x117 = 279, then the envelope.
    List<byte[]> frames = ZmqFrames.encode(EventTopics.KV_EVENTS, e1(), Hex.bytes(E1));
    assertThat(Hex.of(frames.get(3))).isEqualTo("0100000117" + E1);
  }

  @Test
  void e1WithPublishedAtNsDecodesWhereverTheKeySits() throws Exception {
    // plugins-wire §2.4: one version adds published_at_ns (u64 ns), position unknown; decode by name.
    String ns = "af" + Hex.of("published_at_ns".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
        + "cf17979cfe362a0000"; // 1700000000000000000 ns
    String body = E1.substring(2);
    EventMessage expected = new EventMessage.KvEvent(e1(), v1());
    assertThat(EventPlaneCodec.decodeMessage(Hex.bytes("86" + ns + body), EventTopics.KV_EVENTS)).isEqualTo(expected);
    assertThat(EventPlaneCodec.decodeMessage(Hex.bytes("86" + body + ns), EventTopics.KV_EVENTS)).isEqualTo(expected);
    // The early layout with topic first (traits.rs @331ac67b) decodes too.
    int topicAt = body.indexOf("a5746f706963");
    int payloadAt = body.indexOf("a77061796c6f6164");
    String topicFirst = "85" + body.substring(topicAt, payloadAt) + body.substring(0, topicAt) + body.substring(payloadAt);
    assertThat(EventPlaneCodec.decodeMessage(Hex.bytes(topicFirst), EventTopics.KV_EVENTS)).isEqualTo(expected);
  }

  @Test
  void explicitNilOrUnknownResidencyDomainIsKeptAsUnsupportedNotRejected() throws Exception {
    // plugins-wire §2.2: explicit nil and unknown names are not applied; the decoder keeps them as UNKNOWN
    // (hasUnsupportedResidency) so the engine drops and counts them instead of rejecting the source.
    String worker = "a6776f726b6572";
    String asNil = V1.replace("b07265736964656e63795f646f6d61696e" + worker, "b07265736964656e63795f646f6d61696ec0");
    RouterEvent nil = EventPlaneCodec.decodeRouterEvent(Hex.bytes(asNil));
    assertThat(nil.residencyDomain()).isEqualTo(ResidencyDomain.unknown(null));
    assertThat(nil.hasUnsupportedResidency()).isTrue();
    assertThat(nil.targetsPrimary()).isFalse();
    String asOther = V1.replace("b07265736964656e63795f646f6d61696e" + worker,
        "b07265736964656e63795f646f6d61696ea5" + Hex.of("cloud".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    RouterEvent other = EventPlaneCodec.decodeRouterEvent(Hex.bytes(asOther));
    assertThat(other.residencyDomain()).isEqualTo(ResidencyDomain.unknown("cloud"));
    assertThat(other.hasUnsupportedResidency()).isTrue();
    assertThat(other.targetsPrimary()).isFalse();
    // Both re-encode to their received form (explicit nil stays nil).
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(nil))).isEqualTo(asNil);
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(other))).isEqualTo(asOther);
  }
}
