package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Golden msgpack bytes written by hand from the spec (runtime-inputs.md §5.6 envelope key order, §5.7
 * RouterEvent shape, §8 ActiveLoad; rmp_serde {@code to_vec_named}: named maps, smallest integer width,
 * nil for None, unit variant as a bare string, newtype variant as a one-entry map). Encoding must
 * produce exactly these bytes and decoding them must give the values they were written from. The
 * upstream-computed vectors of plugins-wire §2.3 (V1–V4, L1, E1) are {@link SpecGoldenVectorsTest}.
 */
class GoldenMsgpackTest {

  // The RouterEvent of runtime-inputs.md §5.7 (JSON-equivalent shape), byte by byte.
  static final String STORED_PAYLOAD = ""
      + "84"                                          // map, 4 entries
      + "a9 776f726b65725f6964"                       // "worker_id"
      + "cf 694d9ae01eb824cb"                         // uint64 7587891234567890123
      + "ac 73746f726167655f74696572"                 // "storage_tier"
      + "a6 646576696365"                             // "device"
      + "b0 7265736964656e63795f646f6d61696e"         // "residency_domain"
      + "a6 776f726b6572"                             // "worker"
      + "a5 6576656e74"                               // "event"
      + "83"                                          //   map, 3 entries
      + "a8 6576656e745f6964 2a"                      //   "event_id": 42 (positive fixint)
      + "a4 64617461"                                 //   "data"
      + "81 a6 73746f726564"                          //   {"stored":
      + "83"                                          //     map, 3 entries
      + "ab 706172656e745f68617368"                   //     "parent_hash"
      + "cf ab54a98ceb1f0ad2"                         //     uint64 12345678901234567890
      + "ae 73746172745f706f736974696f6e c0"          //     "start_position": nil
      + "a6 626c6f636b73 91"                          //     "blocks": array of 1
      + "83"                                          //       map, 3 entries
      + "aa 626c6f636b5f68617368"                     //       "block_hash"
      + "cf 891087b8e3b70cb1"                         //       uint64 9876543210987654321
      + "ab 746f6b656e735f68617368"                   //       "tokens_hash"
      + "cf cb38e4d7fb2dca5c"                         //       uint64 14643705804678351452
      + "ad 6d6d5f65787472615f696e666f c0"            //       "mm_extra_info": nil
      + "a7 64705f72616e6b 00";                       //   "dp_rank": 0

  // Envelope (publisher_id, sequence, published_at, topic, payload: bin) around STORED_PAYLOAD (206 bytes).
  static final String STORED_ENVELOPE = ""
      + "85"                                          // map, 5 entries
      + "ac 7075626c69736865725f6964"                 // "publisher_id"
      + "cf 000ffffffffffe11"                         // uint64 4503599627370001 (> 2^32)
      + "a8 73657175656e6365 07"                      // "sequence": 7
      + "ac 7075626c69736865645f6174"                 // "published_at"
      + "cf 0000018bcfe56800"                         // uint64 1700000000000
      + "a5 746f706963"                               // "topic"
      + "a9 6b762d6576656e7473"                       // "kv-events"
      + "a7 7061796c6f6164"                           // "payload"
      + "c4 ce"                                       // bin8, 206 bytes
      + STORED_PAYLOAD;

  // A legacy Removed event: no residency_domain key, event_id 256 (uint16), dp_rank 1.
  static final String REMOVED_PAYLOAD = ""
      + "83"                                          // map, 3 entries
      + "a9 776f726b65725f6964 01"                    // "worker_id": 1
      + "ac 73746f726167655f74696572 a6 646576696365" // "storage_tier": "device"
      + "a5 6576656e74 83"                            // "event": map, 3 entries
      + "a8 6576656e745f6964 cd 0100"                 //   "event_id": uint16 256
      + "a4 64617461"                                 //   "data"
      + "81 a7 72656d6f766564"                        //   {"removed":
      + "81 ac 626c6f636b5f686173686573"              //     {"block_hashes":
      + "93 cf 891087b8e3b70cb1 05 cc ff"             //      [9876543210987654321, 5, 255]}}
      + "a7 64705f72616e6b 01";                       //   "dp_rank": 1

  // A Cleared event: unit variant as the bare string "cleared", event_id 70000 (uint32), dp_rank 3.
  static final String CLEARED_PAYLOAD = ""
      + "84"
      + "a9 776f726b65725f6964 cf 694d9ae01eb824cb"
      + "ac 73746f726167655f74696572 a6 646576696365"
      + "b0 7265736964656e63795f646f6d61696e a6 776f726b6572"
      + "a5 6576656e74 83"
      + "a8 6576656e745f6964 ce 00011170"             //   "event_id": uint32 70000
      + "a4 64617461 a7 636c6561726564"               //   "data": "cleared"
      + "a7 64705f72616e6b 03";                       //   "dp_rank": 3

  // ActiveLoad (worker-origin: decode blocks and used blocks, no prefill tokens, no scheduler scope).
  static final String LOAD_PAYLOAD = ""
      + "86"                                                      // map, 6 entries
      + "a9 776f726b65725f6964 cf 694d9ae01eb824cb"               // "worker_id"
      + "a7 64705f72616e6b 00"                                    // "dp_rank": 0
      + "b4 6163746976655f6465636f64655f626c6f636b73 cd 04b0"     // "active_decode_blocks": 1200
      + "b5 6163746976655f70726566696c6c5f746f6b656e73 c0"        // "active_prefill_tokens": nil
      + "b4 7363686564756c65725f6c6f61645f73636f7065 c0"          // "scheduler_load_scope": nil
      + "ae 6b765f757365645f626c6f636b73 cd 05dc";                // "kv_used_blocks": 1500

  static final String LOAD_ENVELOPE = ""
      + "85"
      + "ac 7075626c69736865725f6964 cf 000ffffffffffe11"
      + "a8 73657175656e6365 00"                      // "sequence": 0
      + "ac 7075626c69736865645f6174 cf 0000018bcfe56801"
      + "a5 746f706963 aa 6b765f6d657472696373"       // "topic": "kv_metrics"
      + "a7 7061796c6f6164 c4 74"                     // "payload": bin8, 116 bytes
      + LOAD_PAYLOAD;

  static final long WORKER = 7587891234567890123L;
  static final long PUBLISHER = 4503599627370001L;

  static RouterEvent storedEvent() {
    return new RouterEvent(WORKER, StorageTier.DEVICE, ResidencyDomain.WORKER, 42, 0,
        new KvEventData.Stored(OptionalLong.of(Long.parseUnsignedLong("12345678901234567890")), OptionalLong.empty(),
            List.of(StoredBlock.of(Long.parseUnsignedLong("9876543210987654321"),
                Long.parseUnsignedLong("14643705804678351452")))));
  }

  static RouterEvent removedEvent() {
    return new RouterEvent(1, StorageTier.DEVICE, ResidencyDomain.ABSENT, 256, 1,
        KvEventData.Removed.of(Long.parseUnsignedLong("9876543210987654321"), 5, 255));
  }

  static RouterEvent clearedEvent() {
    return new RouterEvent(WORKER, StorageTier.DEVICE, ResidencyDomain.WORKER, 70_000, 3, KvEventData.Cleared.INSTANCE);
  }

  static ActiveLoad load() {
    return new ActiveLoad(WORKER, 0, OptionalLong.of(1200), OptionalLong.empty(), null, OptionalLong.of(1500));
  }

  @Test
  void storedPayloadLengthIsTheBin8LengthWrittenInTheEnvelope() {
    assertThat(Hex.bytes(STORED_PAYLOAD)).hasSize(206);
    assertThat(Hex.bytes(LOAD_PAYLOAD)).hasSize(116);
  }

  @Test
  void storedEnvelopeEncodesToTheGoldenBytes() {
    EventEnvelope env = new EventEnvelope(PUBLISHER, 7, 1_700_000_000_000L, "kv-events");
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(storedEvent()))).isEqualTo(Hex.of(Hex.bytes(STORED_PAYLOAD)));
    assertThat(Hex.of(EventPlaneCodec.encodeMessage(new EventMessage.KvEvent(env, storedEvent()))))
        .isEqualTo(Hex.of(Hex.bytes(STORED_ENVELOPE)));
  }

  @Test
  void storedEnvelopeDecodesToTheSpecValues() throws Exception {
    EventMessage m = EventPlaneCodec.decodeMessage(Hex.bytes(STORED_ENVELOPE), "kv-events");
    assertThat(m).isEqualTo(new EventMessage.KvEvent(
        new EventEnvelope(PUBLISHER, 7, 1_700_000_000_000L, "kv-events"), storedEvent()));
    RouterEvent e = ((EventMessage.KvEvent) m).event();
    assertThat(Long.toUnsignedString(e.workerId())).isEqualTo("7587891234567890123");
    KvEventData.Stored s = (KvEventData.Stored) e.data();
    assertThat(Long.toUnsignedString(s.parentHash().getAsLong())).isEqualTo("12345678901234567890");
    assertThat(Long.toUnsignedString(s.blocks().get(0).tokensHash())).isEqualTo("14643705804678351452");
    assertThat(e.targetsPrimary()).isTrue();
  }

  @Test
  void removedPayloadRoundTripsThroughTheGoldenBytes() throws Exception {
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(removedEvent()))).isEqualTo(Hex.of(Hex.bytes(REMOVED_PAYLOAD)));
    RouterEvent e = EventPlaneCodec.decodeRouterEvent(Hex.bytes(REMOVED_PAYLOAD));
    assertThat(e).isEqualTo(removedEvent());
    assertThat(e.residencyDomain().kind()).isEqualTo(ResidencyDomain.Kind.ABSENT);
    assertThat(e.targetsPrimary()).as("legacy payload without a domain is primary").isTrue();
  }

  @Test
  void clearedPayloadRoundTripsThroughTheGoldenBytes() throws Exception {
    assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(clearedEvent()))).isEqualTo(Hex.of(Hex.bytes(CLEARED_PAYLOAD)));
    assertThat(EventPlaneCodec.decodeRouterEvent(Hex.bytes(CLEARED_PAYLOAD))).isEqualTo(clearedEvent());
  }

  @Test
  void loadEnvelopeRoundTripsThroughTheGoldenBytes() throws Exception {
    EventEnvelope env = new EventEnvelope(PUBLISHER, 0, 1_700_000_000_001L, "kv_metrics");
    assertThat(Hex.of(EventPlaneCodec.encodeActiveLoad(load()))).isEqualTo(Hex.of(Hex.bytes(LOAD_PAYLOAD)));
    assertThat(Hex.of(EventPlaneCodec.encodeMessage(new EventMessage.Load(env, load()))))
        .isEqualTo(Hex.of(Hex.bytes(LOAD_ENVELOPE)));
    assertThat(EventPlaneCodec.decodeMessage(Hex.bytes(LOAD_ENVELOPE), "kv_metrics"))
        .isEqualTo(new EventMessage.Load(env, load()));
  }

  @Test
  void zmqFramesOfTheGoldenEnvelope() {
    EventEnvelope env = new EventEnvelope(PUBLISHER, 7, 1_700_000_000_000L, "kv-events");
    List<byte[]> frames = ZmqFrames.encode("kv-events", env, Hex.bytes(STORED_ENVELOPE));
    assertThat(Hex.of(frames.get(0))).isEqualTo("6b762d6576656e7473");
    assertThat(Hex.of(frames.get(1))).isEqualTo("000ffffffffffe11");
    assertThat(Hex.of(frames.get(2))).isEqualTo("0000000000000007");
    // version 0x01, payload_len u32 BE = the envelope's length (81 header bytes + 206 = 287 = 0x011f)
    assertThat(Hex.bytes(STORED_ENVELOPE)).hasSize(287);
    assertThat(Hex.of(frames.get(3))).startsWith("010000011f" + "85ac7075");
    assertThat(frames.get(3)).hasSize(5 + 287);
    assertThat(ZmqFrames.check(frames, "kv-events", "kv-events", id -> id == PUBLISHER))
        .isEqualTo(new ZmqFrameCheck.Accepted(new EventMessage.KvEvent(env, storedEvent())));
  }

  @Test
  void subjectOfTheSpecExample() {
    // runtime-inputs.md §5.3 example, with the EventTopics constant.
    assertThat(EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate")).subject(EventTopics.KV_EVENTS))
        .isEqualTo("namespace.dynamo.component.backend.endpoint.generate.kv-events");
  }
}
