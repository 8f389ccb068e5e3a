package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.eventplane.EventDecodeException.Reason;
import java.util.List;
import java.util.OptionalLong;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The lenient-decoding rules of runtime-inputs.md §5.7 / §11 Q1 and every malformed class, each on
 * hand-written msgpack bytes.
 */
class DecodingRulesTest {
  // Building blocks (hand-encoded msgpack).
  static final String WORKER_ID_7 = "a9 776f726b65725f6964 07";
  static final String TIER_DEVICE = "ac 73746f726167655f74696572 a6 646576696365";
  static final String DOMAIN_KEY = "b0 7265736964656e63795f646f6d61696e";
  static final String EVENT_KEY = "a5 6576656e74";
  static final String EVENT_ID_KEY = "a8 6576656e745f6964";
  static final String DATA_KEY = "a4 64617461";
  static final String DP_RANK_KEY = "a7 64705f72616e6b";
  static final String CLEARED = "a7 636c6561726564";

  static RouterEvent decode(String hex) throws EventDecodeException {
    return EventPlaneCodec.decodeRouterEvent(Hex.bytes(hex));
  }

  static void assertReason(ThrowingCallable call, Reason reason, String field) {
    assertThatThrownBy(call).isInstanceOfSatisfying(EventDecodeException.class, e -> {
      assertThat(e.reason()).isEqualTo(reason);
      assertThat(e.field()).isEqualTo(field);
    });
  }

  /** A minimal cleared event with the given event-map body (3 entries). */
  static String clearedEvent(String eventIdHex) {
    return "82" + WORKER_ID_7 + EVENT_KEY + "83" + EVENT_ID_KEY + eventIdHex + DATA_KEY + CLEARED + DP_RANK_KEY + "00";
  }

  @Test
  void anyIntegerWidthSignedOrUnsignedIsAcceptedForU64() throws Exception {
    for (String five : List.of("05", "cc05", "cd0005", "ce00000005", "cf0000000000000005",
        "d005", "d10005", "d200000005", "d30000000000000005")) {
      assertThat(decode(clearedEvent(five)).eventId()).as(five).isEqualTo(5);
    }
    assertThat(decode(clearedEvent("cfffffffffffffffff")).eventId()).isEqualTo(-1L); // u64 max
  }

  @Test
  void negativeIntegersAreOutOfRangeForUnsignedFields() {
    // Decision: a negative value is not reinterpreted as its two's complement (rmp_serde rejects it).
    assertReason(() -> decode(clearedEvent("ff")), Reason.OUT_OF_RANGE, "event.event_id");
    assertReason(() -> decode(clearedEvent("d0ff")), Reason.OUT_OF_RANGE, "event.event_id");
    assertReason(() -> decode(clearedEvent("d3ffffffffffffffff")), Reason.OUT_OF_RANGE, "event.event_id");
  }

  @Test
  void dpRankMustFitU32() throws Exception {
    String ev = "82" + WORKER_ID_7 + EVENT_KEY + "83" + EVENT_ID_KEY + "01" + DATA_KEY + CLEARED + DP_RANK_KEY;
    assertThat(decode(ev + "ceffffffff").dpRank()).isEqualTo(-1); // 2^32 - 1 as unsigned int
    assertReason(() -> decode(ev + "cf0000000100000000"), Reason.OUT_OF_RANGE, "event.dp_rank");
  }

  @Test
  void unitVariantAsBareStringOrOneEntryMap() throws Exception {
    String base = "82" + WORKER_ID_7 + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY;
    assertThat(decode(base + CLEARED).data()).isEqualTo(KvEventData.Cleared.INSTANCE);
    assertThat(decode(base + "81" + CLEARED + "c0").data()).isEqualTo(KvEventData.Cleared.INSTANCE);
    assertThat(decode(base + "81" + CLEARED + "90").data()).isEqualTo(KvEventData.Cleared.INSTANCE);
    // storage_tier as {"host_pinned": nil}
    String tierMap = "83" + WORKER_ID_7 + "ac 73746f726167655f74696572 81 ab 686f73745f70696e6e6564 c0"
        + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY + CLEARED;
    RouterEvent e = decode(tierMap);
    assertThat(e.storageTier()).isEqualTo(StorageTier.HOST_PINNED);
    assertThat(e.targetsPrimary()).isFalse();
  }

  @Test
  void absentOptionalFieldsTakeTheirDefaults() throws Exception {
    RouterEvent e = decode("82" + WORKER_ID_7 + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY + CLEARED);
    assertThat(e).isEqualTo(new RouterEvent(7, StorageTier.DEVICE, ResidencyDomain.ABSENT, 1, 0,
        KvEventData.Cleared.INSTANCE));
    // Stored without parent_hash / start_position and a block without mm_extra_info
    String stored = "82" + WORKER_ID_7 + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY
        + "81 a6 73746f726564 81 a6 626c6f636b73 91 82 aa 626c6f636b5f68617368 01 ab 746f6b656e735f68617368 02";
    assertThat(decode(stored).data()).isEqualTo(
        new KvEventData.Stored(OptionalLong.empty(), OptionalLong.empty(), List.of(StoredBlock.of(1, 2))));
  }

  @Test
  void fieldOrderIsFreeAndUnknownKeysAreSkipped() throws Exception {
    String hex = "84"
        + EVENT_KEY + "84" + DP_RANK_KEY + "02" + "a1 78 92 c3 81 a1 79 cb 3ff0000000000000" // "x": [true, {"y": 1.0}]
        + DATA_KEY + CLEARED + EVENT_ID_KEY + "09"
        + "a5 7374617465 d6 01 00000000" // "state": fixext4
        + WORKER_ID_7 + TIER_DEVICE;
    assertThat(decode(hex)).isEqualTo(new RouterEvent(7, StorageTier.DEVICE, ResidencyDomain.ABSENT, 9, 2,
        KvEventData.Cleared.INSTANCE));
  }

  @Test
  void residencyDomainCases() throws Exception {
    String tail = EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY + CLEARED;
    assertThat(decode("83" + WORKER_ID_7 + DOMAIN_KEY + "a6 776f726b6572" + tail).residencyDomain())
        .isEqualTo(ResidencyDomain.WORKER);
    RouterEvent owner = decode("83" + WORKER_ID_7 + DOMAIN_KEY + "ab 63616368655f6f776e6572" + tail);
    assertThat(owner.residencyDomain()).isEqualTo(ResidencyDomain.CACHE_OWNER);
    assertThat(owner.targetsPrimary()).isFalse();
    assertThat(owner.hasUnsupportedResidency()).isFalse();
    // explicit nil: unknown, raw null (the event is ignored, not rejected; ckf-cbi1.md §3.4 decision)
    RouterEvent nil = decode("83" + WORKER_ID_7 + DOMAIN_KEY + "c0" + tail);
    assertThat(nil.residencyDomain()).isEqualTo(ResidencyDomain.unknown(null));
    assertThat(nil.targetsPrimary()).isFalse();
    assertThat(nil.hasUnsupportedResidency()).isTrue();
    // unknown string kept verbatim; also in one-entry-map form
    assertThat(decode("83" + WORKER_ID_7 + DOMAIN_KEY + "a3 666f6f" + tail).residencyDomain())
        .isEqualTo(ResidencyDomain.unknown("foo"));
    assertThat(decode("83" + WORKER_ID_7 + DOMAIN_KEY + "81 a6 776f726b6572 c0" + tail).residencyDomain())
        .isEqualTo(ResidencyDomain.WORKER);
    assertReason(() -> decode("83" + WORKER_ID_7 + DOMAIN_KEY + "05" + tail), Reason.WRONG_TYPE, "residency_domain");
  }

  @Test
  void malformedClassesHaveTypedReasons() {
    String ok = clearedEvent("01");
    assertReason(() -> decode(""), Reason.TRUNCATED, "");
    assertReason(() -> decode("92 01 02"), Reason.WRONG_TYPE, "");  // struct as array: named form only
    assertReason(() -> decode(ok + "00"), Reason.TRAILING_BYTES, "");
    assertReason(() -> decode("81" + WORKER_ID_7), Reason.MISSING_FIELD, "event");
    assertReason(() -> decode("82" + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY + CLEARED + "a1 78 00"),
        Reason.MISSING_FIELD, "worker_id");
    assertReason(() -> decode("82" + WORKER_ID_7 + EVENT_KEY + "81" + DATA_KEY + CLEARED),
        Reason.MISSING_FIELD, "event.event_id");
    assertReason(() -> decode("83" + WORKER_ID_7 + WORKER_ID_7 + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY
        + CLEARED), Reason.DUPLICATE_FIELD, "worker_id");
    String dataBase = "82" + WORKER_ID_7 + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY;
    assertReason(() -> decode(dataBase + "a3 666f6f"), Reason.BAD_VARIANT, "event.data");           // "foo"
    assertReason(() -> decode(dataBase + "a6 73746f726564"), Reason.BAD_VARIANT, "event.data");     // bare "stored"
    assertReason(() -> decode(dataBase + "82" + CLEARED + "c0" + CLEARED + "c0"), Reason.BAD_VARIANT, "event.data");
    assertReason(() -> decode(dataBase + "80"), Reason.BAD_VARIANT, "event.data");
    assertReason(() -> decode(dataBase + "05"), Reason.WRONG_TYPE, "event.data");
    assertReason(() -> decode("82 a9 776f726b65725f6964 a1 78" + EVENT_KEY + "80"), Reason.WRONG_TYPE, "worker_id");
    assertReason(() -> decode("82" + WORKER_ID_7 + "ac 73746f726167655f74696572 a3 666f6f"),
        Reason.BAD_VARIANT, "storage_tier");
    assertReason(() -> decode("83" + WORKER_ID_7 + DOMAIN_KEY + "a2 c328" + EVENT_KEY + "80"),
        Reason.INVALID_UTF8, "residency_domain");
    assertReason(() -> decode(dataBase + "81 a7 72656d6f766564 81 ac 626c6f636b5f686173686573 91 a1 78"),
        Reason.WRONG_TYPE, "event.data.removed.block_hashes");
    assertReason(() -> decode("c1"), Reason.WRONG_TYPE, "");
  }

  @Test
  void oversizeLengthsAreRejectedBeforeAllocating() {
    String dataBase = "82" + WORKER_ID_7 + EVENT_KEY + "82" + EVENT_ID_KEY + "01" + DATA_KEY;
    // block_hashes declared with 2^32 - 1 elements in a few bytes
    assertReason(() -> decode(dataBase + "81 a7 72656d6f766564 81 ac 626c6f636b5f686173686573 dd ffffffff 01"),
        Reason.OVERSIZE_LENGTH, "event.data.removed.block_hashes");
    assertReason(() -> decode("df ffffffff"), Reason.OVERSIZE_LENGTH, "");
    assertReason(() -> decode("81 db 7fffffff 41"), Reason.OVERSIZE_LENGTH, "");
    // an unknown key whose bin32 value declares 2 GiB
    assertReason(() -> decode("81 a1 78 c6 7fffffff 00"), Reason.OVERSIZE_LENGTH, "");
    assertReason(() -> EventPlaneCodec.decodeMessage(Hex.bytes(
        "81 a7 7061796c6f6164 c6 ffffffff 00"), "kv-events"), Reason.OVERSIZE_LENGTH, "payload");
  }

  @Test
  void deeplyNestedIgnoredValuesFailWithoutOverflowingTheStack() {
    StringBuilder deep = new StringBuilder("81 a1 78");
    deep.append("91".repeat(100_000)).append("c0");
    assertReason(() -> decode(deep.toString()), Reason.TOO_DEEP, "");
  }

  @Test
  void envelopeRules() throws Exception {
    byte[] golden = Hex.bytes(GoldenMsgpackTest.STORED_ENVELOPE);
    assertThatThrownBy(() -> EventPlaneCodec.decodeMessage(golden, "kv_metrics"))
        .isInstanceOfSatisfying(EventDecodeException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.IDENTITY_MISMATCH);
          assertThat(e.publisherId()).hasValue(GoldenMsgpackTest.PUBLISHER);
        });
    // payload errors are reported under "payload." with the envelope's publisher id
    EventEnvelope env = new EventEnvelope(77, 0, 1, "kv-events");
    byte[] badPayload = EventPlaneCodec.encodeEnvelope(env, Hex.bytes("81" + WORKER_ID_7));
    assertThatThrownBy(() -> EventPlaneCodec.decodeMessage(badPayload, "kv-events"))
        .isInstanceOfSatisfying(EventDecodeException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.MISSING_FIELD);
          assertThat(e.field()).isEqualTo("payload.event");
          assertThat(e.publisherId()).hasValue(77);
        });
    // payload as an array of u8 (a Vec<u8> without serde_bytes) is accepted
    byte[] payload = Hex.bytes(clearedEvent("01"));
    StringBuilder arr = new StringBuilder("dc").append(String.format("%04x", payload.length));
    for (byte b : payload) {
      arr.append(String.format("cc%02x", b & 0xFF));
    }
    String hex = "85 ac 7075626c69736865725f6964 07 a8 73657175656e6365 00 ac 7075626c69736865645f6174 00"
        + "a5 746f706963 a9 6b762d6576656e7473 a7 7061796c6f6164" + arr;
    EventMessage m = EventPlaneCodec.decodeMessage(Hex.bytes(hex), "kv-events");
    assertThat(((EventMessage.KvEvent) m).event()).isEqualTo(decode(clearedEvent("01")));
    assertReason(() -> EventPlaneCodec.decodeMessage(Hex.bytes("84 ac 7075626c69736865725f6964 07"
        + "a8 73657175656e6365 00 ac 7075626c69736865645f6174 00 a5 746f706963 a9 6b762d6576656e7473"),
        "kv-events"), Reason.MISSING_FIELD, "payload");
  }

  @Test
  void activeLoadRules() throws Exception {
    // only worker_id is required; scheduler_load_scope as a one-entry map
    byte[] min = Hex.bytes("82 a9 776f726b65725f6964 01 b4 7363686564756c65725f6c6f61645f73636f7065"
        + "81 b4 7265706c6963615f73796e6368726f6e697a6564 c0");
    assertThat(EventPlaneCodec.decodeActiveLoad(min)).isEqualTo(new ActiveLoad(1, 0, OptionalLong.empty(),
        OptionalLong.empty(), SchedulerLoadScope.REPLICA_SYNCHRONIZED, OptionalLong.empty()));
    assertReason(() -> EventPlaneCodec.decodeActiveLoad(Hex.bytes("80")), Reason.MISSING_FIELD, "worker_id");
    assertReason(() -> EventPlaneCodec.decodeActiveLoad(Hex.bytes(
        "82 a9 776f726b65725f6964 01 b4 7363686564756c65725f6c6f61645f73636f7065 a6 676c6f62616c")),
        Reason.BAD_VARIANT, "scheduler_load_scope");
  }
}
