package dev.kvrelay.spi.discovery;

import static dev.kvrelay.spi.discovery.TestRecords.ep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code DiscoveryInstance} examples of runtime-inputs.md §1.2 and the §3.1 / fixture CRDs. */
class DiscoveryCodecTest {

  // runtime-inputs.md §1.2, Endpoint example (verbatim).
  static final String ENDPOINT_EXAMPLE =
      "{\"type\":\"Endpoint\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\","
          + "\"instance_id\":7587891234567890123,"
          + "\"transport\":{\"tcp\":\"10.1.2.3:9999/generate\"},"
          + "\"request_plane_codec\":\"msgpack\"}";

  // §1.2 Model example, card_json filled with the §3.1 card.
  static final String MODEL_EXAMPLE =
      "{\"type\":\"Model\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\","
          + "\"instance_id\":7587891234567890123,"
          + "\"card_json\":{\"display_name\":\"Qwen/Qwen3-0.6B\",\"kv_cache_block_size\":16},"
          + "\"model_suffix\":\"customer-123-v2\"}";

  // §1.2 EventChannel example (verbatim).
  static final String EVENT_CHANNEL_EXAMPLE =
      "{\"type\":\"EventChannel\","
          + "\"scope\":{\"kind\":\"endpoint\",\"endpoint\":{\"namespace\":\"dynamo\",\"component\":\"backend\",\"name\":\"generate\"}},"
          + "\"topic\":\"kv-events\",\"instance_id\":4503599627370001,"
          + "\"transport\":{\"kind\":\"Zmq\",\"config\":{\"endpoint\":\"tcp://10.1.2.3:41877\"}}}";

  // §1.2 EventSource example, recovery_target filled with the Endpoint example's Instance fields.
  static final String EVENT_SOURCE_EXAMPLE =
      "{\"type\":\"EventSource\","
          + "\"scope\":{\"kind\":\"endpoint\",\"endpoint\":{\"namespace\":\"dynamo\",\"component\":\"backend\",\"name\":\"generate\"}},"
          + "\"topic\":\"kv-events\",\"publisher_id\":4503599627370001,"
          + "\"metadata\":{\"kv_state_endpoint\":{\"namespace\":\"dynamo\",\"component\":\"backend\",\"name\":\"generate\"},"
          + "\"worker\":{\"worker_id\":7587891234567890123,\"dp_rank\":0},"
          + "\"publisher_id\":4503599627370001,"
          + "\"recovery_target\":{\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\","
          + "\"instance_id\":7587891234567890123,\"transport\":{\"tcp\":\"10.1.2.3:9999/generate\"},"
          + "\"request_plane_codec\":\"msgpack\"}}}";

  static final EndpointRecord EXPECTED_ENDPOINT = new EndpointRecord(
      new EndpointKey(ep("dynamo", "backend", "generate"), 7587891234567890123L),
      new Transport.Tcp("10.1.2.3:9999/generate"), "msgpack", null);

  @Test
  void endpointExampleDecodes() throws Exception {
    DiscoveryRecord r = DiscoveryCodec.decode(ENDPOINT_EXAMPLE);
    assertThat(r).isEqualTo(EXPECTED_ENDPOINT);
    assertThat(r.key().path()).isEqualTo("dynamo/backend/generate/694d9ae01eb824cb");
    assertThat(r.key().storageKey()).isEqualTo("v1/instances/dynamo/backend/generate/694d9ae01eb824cb");
    Transport.Tcp tcp = (Transport.Tcp) EXPECTED_ENDPOINT.transport();
    assertThat(tcp.hostAndPort()).isEqualTo("10.1.2.3:9999");
    assertThat(tcp.endpointPath()).isEqualTo("generate");
  }

  @Test
  void modelExampleDecodesAsAnAdapterKey() throws Exception {
    ModelRecord r = (ModelRecord) DiscoveryCodec.decode(MODEL_EXAMPLE);
    assertThat(r.key()).isEqualTo(new ModelKey(ep("dynamo", "backend", "generate"), 7587891234567890123L, "customer-123-v2"));
    assertThat(r.key().path()).isEqualTo("dynamo/backend/generate/694d9ae01eb824cb/customer-123-v2");
    assertThat(r.card().displayName()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThat(r.card().kvCacheBlockSize()).isEqualTo(16);
    assertThat(r.rawCard()).isEqualTo(Json.parse("{\"kv_cache_block_size\":16,\"display_name\":\"Qwen/Qwen3-0.6B\"}"));
  }

  @Test
  void eventChannelExampleDecodes() throws Exception {
    DiscoveryRecord r = DiscoveryCodec.decode(EVENT_CHANNEL_EXAMPLE);
    assertThat(r).isEqualTo(new EventChannelRecord(
        new EventChannelKey(new EventScope.Endpoint(ep("dynamo", "backend", "generate")), "kv-events", 4503599627370001L),
        new ChannelTransport.Zmq("tcp://10.1.2.3:41877")));
    assertThat(r.key().storageKey())
        .isEqualTo("v1/event_channels/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/ffffffffffe11");
  }

  @Test
  void eventSourceExampleDecodes() throws Exception {
    EventSourceRecord r = (EventSourceRecord) DiscoveryCodec.decode(EVENT_SOURCE_EXAMPLE);
    assertThat(r.key()).isEqualTo(
        new EventSourceKey(new EventScope.Endpoint(ep("dynamo", "backend", "generate")), "kv-events", 4503599627370001L));
    assertThat(r.source()).isEqualTo(new KvEventSource(ep("dynamo", "backend", "generate"), 7587891234567890123L, 0,
        4503599627370001L, EXPECTED_ENDPOINT));
    assertThat(r.source().isRecoverable()).isTrue();
    assertThat(r.key().storageKey())
        .isEqualTo("v1/event_sources/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/ffffffffffe11");
  }

  @Test
  void examplesReencodeToEqualJson() throws Exception {
    for (String example : List.of(ENDPOINT_EXAMPLE, MODEL_EXAMPLE, EVENT_CHANNEL_EXAMPLE, EVENT_SOURCE_EXAMPLE)) {
      DiscoveryRecord r = DiscoveryCodec.decode(example);
      assertThat(DiscoveryCodec.encode(r)).as(example).isEqualTo(Json.parse(example));
    }
  }

  @Test
  void otherEndpointShapesAndOptionalFields() throws Exception {
    String base = "{\"type\":\"Endpoint\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1,";
    assertThat(((EndpointRecord) DiscoveryCodec.decode(base + "\"transport\":{\"nats_tcp\":\"n.c.e\"}}")).transport())
        .isEqualTo(new Transport.NatsTcp("n.c.e"));
    assertThat(((EndpointRecord) DiscoveryCodec.decode(base + "\"transport\":{\"Nats\":\"n.c.e\"}}")).transport())
        .isEqualTo(new Transport.NatsTcp("n.c.e"));
    assertThat(((EndpointRecord) DiscoveryCodec.decode(base + "\"transport\":{\"NatsTcp\":\"n.c.e\"}}")).transport())
        .isEqualTo(new Transport.NatsTcp("n.c.e"));
    assertThat(((EndpointRecord) DiscoveryCodec.decode(base + "\"transport\":{\"TCP\":\"h:1/e\"}}")).transport())
        .isEqualTo(new Transport.Tcp("h:1/e"));
    assertThat(((EndpointRecord) DiscoveryCodec.decode(base + "\"transport\":{\"http\":\"http://h/e\"}}")).transport())
        .isEqualTo(new Transport.Http("http://h/e"));
    // Q4: device_type omitted or null are the same; request_plane_codec absent = legacy JSON-only worker.
    EndpointRecord withNull = (EndpointRecord) DiscoveryCodec.decode(
        base + "\"transport\":{\"tcp\":\"h:1/e\"},\"device_type\":null,\"extra\":[1,2]}");
    assertThat(withNull.deviceType()).isNull();
    assertThat(withNull.requestPlaneCodec()).isNull();
    EndpointRecord cuda = (EndpointRecord) DiscoveryCodec.decode(base + "\"transport\":{\"tcp\":\"h:1/e\"},\"device_type\":\"cuda\"}");
    assertThat(cuda.deviceType()).isEqualTo("cuda");
  }

  @Test
  void idsAtOrAbove2To63AreUnsigned() throws Exception {
    String json = "{\"type\":\"Endpoint\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\","
        + "\"instance_id\":18446744073709551615,\"transport\":{\"tcp\":\"h:1/e\"}}";
    EndpointRecord r = (EndpointRecord) DiscoveryCodec.decode(json);
    assertThat(r.instanceId()).isEqualTo(-1L);
    assertThat(r.key().path()).isEqualTo("n/c/e/ffffffffffffffff");
    assertThat(DiscoveryCodec.encode(r).get("instance_id")).isEqualTo(new JsonNumber("18446744073709551615"));

    String twoTo63 = json.replace("18446744073709551615", "9223372036854775808");
    EndpointRecord r63 = (EndpointRecord) DiscoveryCodec.decode(twoTo63);
    assertThat(r63.instanceId()).isEqualTo(Long.MIN_VALUE);
    assertThat(r63.key().path()).isEqualTo("n/c/e/8000000000000000");

    DiscoveryDecodeException tooBig = catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryCodec.decode(json.replace("18446744073709551615", "18446744073709551616")));
    assertThat(tooBig.reason()).isEqualTo(DiscoveryDecodeException.Reason.INVALID_VALUE);
    assertThat(tooBig.field()).isEqualTo("instance_id");
  }

  @Test
  void legacyEventChannelShapeFromTheV12FixtureIsAccepted() throws Exception {
    // Upstream fixture lib/runtime/src/discovery/kube/fixtures/v1_2_dwm.json: flat EventChannel, component "" = namespace scope.
    String spec = "{\"endpoints\":{\"dynamo/backend/generate/2a\":{\"type\":\"Endpoint\",\"namespace\":\"dynamo\","
        + "\"component\":\"backend\",\"endpoint\":\"generate\",\"instance_id\":42,\"transport\":{\"nats_tcp\":\"dynamo.backend.generate\"}}},"
        + "\"model_cards\":{\"dynamo/backend/generate/2a\":{\"type\":\"Model\",\"namespace\":\"dynamo\",\"component\":\"backend\","
        + "\"endpoint\":\"generate\",\"instance_id\":42,\"card_json\":{\"display_name\":\"Qwen/Qwen3-0.6B\"},\"model_suffix\":null}},"
        + "\"event_channels\":{\"dynamo/backend/kv-events/2a\":{\"type\":\"EventChannel\",\"namespace\":\"dynamo\","
        + "\"component\":\"backend\",\"topic\":\"kv-events\",\"instance_id\":42,"
        + "\"transport\":{\"kind\":\"Nats\",\"config\":{\"subject_prefix\":\"namespace.dynamo.component.backend\"}}},"
        + "\"dynamo//kv_metrics/2a\":{\"type\":\"EventChannel\",\"namespace\":\"dynamo\",\"component\":\"\","
        + "\"topic\":\"kv_metrics\",\"instance_id\":42,"
        + "\"transport\":{\"kind\":\"Nats\",\"config\":{\"subject_prefix\":\"namespace.dynamo\"}}}}}";
    DiscoveryCodec.WorkerMetadata m = DiscoveryCodec.decodeWorkerMetadata(Json.parse(spec));
    assertThat(m.records()).containsExactly(
        new EndpointRecord(new EndpointKey(ep("dynamo", "backend", "generate"), 42),
            new Transport.NatsTcp("dynamo.backend.generate"), null, null),
        new EventChannelRecord(new EventChannelKey(new EventScope.Component("dynamo", "backend"), "kv-events", 42),
            new ChannelTransport.Nats("namespace.dynamo.component.backend")),
        new EventChannelRecord(new EventChannelKey(new EventScope.Namespace("dynamo"), "kv_metrics", 42),
            new ChannelTransport.Nats("namespace.dynamo")));
    // The legacy card has no kv_cache_block_size, which runtime-inputs.md §4.1 requires: skipped and reported.
    assertThat(m.skipped()).singleElement().satisfies(e -> {
      assertThat(e.reason()).isEqualTo(DiscoveryDecodeException.Reason.MISSING_FIELD);
      assertThat(e.field()).isEqualTo("card_json.kv_cache_block_size");
      assertThat(e.entry()).isEqualTo("model_cards/dynamo/backend/generate/2a");
    });
  }

  @Test
  void crdExampleOf31Decodes() throws Exception {
    // runtime-inputs.md §3.1 example; its event_sources placeholder replaced by the §1.2 EventSource example.
    String cr = "{\"apiVersion\":\"nvidia.com/v1alpha1\",\"kind\":\"DynamoWorkerMetadata\","
        + "\"metadata\":{\"name\":\"vllm-worker-0\",\"namespace\":\"team-a\","
        + "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"vllm-worker-0\",\"uid\":\"6f1c...\",\"controller\":false,\"blockOwnerDeletion\":false}]},"
        + "\"spec\":{\"data\":{"
        + "\"endpoints\":{\"dynamo/backend/generate/43710f49c0cff\":{\"type\":\"Endpoint\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\",\"instance_id\":1186445869714687,\"transport\":{\"tcp\":\"10.1.2.3:9999/generate\"}}},"
        + "\"model_cards\":{\"dynamo/backend/generate/43710f49c0cff\":{\"type\":\"Model\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\",\"instance_id\":1186445869714687,\"card_json\":{\"display_name\":\"Qwen/Qwen3-0.6B\",\"kv_cache_block_size\":16}}},"
        + "\"event_channels\":{\"namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/fffb2a01c3d4e\":" + EVENT_CHANNEL_EXAMPLE + "},"
        + "\"event_sources\":{\"namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/fffb2a01c3d4e\":" + EVENT_SOURCE_EXAMPLE + "}}}}";
    JsonValue specData = ((JsonObject) ((JsonObject) Json.parse(cr)).get("spec")).get("data");
    DiscoveryCodec.WorkerMetadata m = DiscoveryCodec.decodeWorkerMetadata(specData);
    assertThat(m.skipped()).isEmpty();
    assertThat(m.records()).hasSize(4);
    assertThat(m.records().get(0)).isEqualTo(new EndpointRecord(
        new EndpointKey(ep("dynamo", "backend", "generate"), 1186445869714687L), new Transport.Tcp("10.1.2.3:9999/generate"),
        null, null));
    // The endpoint and model map keys are the objects' own paths: 1186445869714687 = hash("worker-0") masked (§3.4) = 43710f49c0cff.
    assertThat(m.records().get(0).key().path()).isEqualTo("dynamo/backend/generate/43710f49c0cff");
    assertThat(m.records().get(1).key().path()).isEqualTo("dynamo/backend/generate/43710f49c0cff");
    assertThat(((ModelRecord) m.records().get(1)).card().kvCacheBlockSize()).isEqualTo(16);
    assertThat(m.records().get(2)).isEqualTo(DiscoveryCodec.decode(EVENT_CHANNEL_EXAMPLE));
    assertThat(m.records().get(3)).isEqualTo(DiscoveryCodec.decode(EVENT_SOURCE_EXAMPLE));

    // Re-encoding keys the maps by each object's path; decoding that gives the same records.
    JsonObject reencoded = DiscoveryCodec.encodeWorkerMetadata(m.records());
    assertThat(DiscoveryCodec.decodeWorkerMetadata(reencoded).records()).containsExactlyInAnyOrderElementsOf(m.records());
    assertThat(((JsonObject) reencoded.get("endpoints")).members().keySet())
        .containsExactly("dynamo/backend/generate/43710f49c0cff");
  }

  @Test
  void workerMetadataMissingOrNullMapsAreEmptyAndBadStructureIsFatal() throws Exception {
    assertThat(DiscoveryCodec.decodeWorkerMetadata(Json.parse("{\"endpoints\":null}")).records()).isEmpty();
    assertThat(DiscoveryCodec.decodeWorkerMetadata(Json.parse("{}")).records()).isEmpty();
    assertThat(catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryCodec.decodeWorkerMetadata(Json.parse("[]"))).reason())
        .isEqualTo(DiscoveryDecodeException.Reason.WRONG_TYPE);
    DiscoveryDecodeException badMap = catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryCodec.decodeWorkerMetadata(Json.parse("{\"model_cards\":[1]}")));
    assertThat(badMap.field()).isEqualTo("spec.data.model_cards");
    assertThat(catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryCodec.decodeWorkerMetadata(null)).reason()).isEqualTo(DiscoveryDecodeException.Reason.WRONG_TYPE);
  }

  @Test
  void workerMetadataSkipsEntriesInTheWrongMapAndDuplicateIds() throws Exception {
    String spec = "{\"model_cards\":{\"x\":" + ENDPOINT_EXAMPLE + "},"
        + "\"endpoints\":{\"a\":" + ENDPOINT_EXAMPLE + ",\"b\":" + ENDPOINT_EXAMPLE + "}}";
    DiscoveryCodec.WorkerMetadata m = DiscoveryCodec.decodeWorkerMetadata(Json.parse(spec));
    assertThat(m.records()).containsExactly(EXPECTED_ENDPOINT);
    assertThat(m.skipped()).extracting(DiscoveryDecodeException::entry).containsExactly("endpoints/b", "model_cards/x");
    assertThat(m.skipped()).allSatisfy(e -> assertThat(e.reason()).isEqualTo(DiscoveryDecodeException.Reason.KEY_MISMATCH));
  }

  @Test
  void decodeAtChecksTheStorageKey() throws Exception {
    byte[] value = ENDPOINT_EXAMPLE.getBytes(StandardCharsets.UTF_8);
    assertThat(DiscoveryCodec.decodeAt(DiscoveryKind.ENDPOINT, "dynamo/backend/generate/694d9ae01eb824cb", value))
        .isEqualTo(EXPECTED_ENDPOINT);
    DiscoveryDecodeException wrongPath = catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryCodec.decodeAt(DiscoveryKind.ENDPOINT, "dynamo/backend/generate/1", value));
    assertThat(wrongPath.reason()).isEqualTo(DiscoveryDecodeException.Reason.KEY_MISMATCH);
    assertThat(wrongPath.entry()).isEqualTo("v1/instances/dynamo/backend/generate/1");
    DiscoveryDecodeException wrongBucket = catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryCodec.decodeAt(DiscoveryKind.MODEL, "dynamo/backend/generate/694d9ae01eb824cb", value));
    assertThat(wrongBucket.reason()).isEqualTo(DiscoveryDecodeException.Reason.KEY_MISMATCH);
    assertThat(wrongBucket.getMessage()).startsWith("v1/mdc/dynamo/backend/generate/694d9ae01eb824cb type: ");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "not json                          | {\"type\":                                        | INVALID_JSON  | ''",
    "not an object                     | [1]                                               | WRONG_TYPE    | ''",
    "no type                           | {}                                                | MISSING_FIELD | type",
    "unknown type                      | {\"type\":\"Gateway\"}                            | UNKNOWN_TYPE  | type",
    "duplicate key                     | {\"type\":\"Endpoint\",\"type\":\"Model\"}        | INVALID_JSON  | ''",
    "bad transport tag                 | {\"type\":\"Endpoint\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1,\"transport\":{\"udp\":\"x\"}} | UNKNOWN_TYPE | transport.udp",
    "two transport tags                | {\"type\":\"Endpoint\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1,\"transport\":{\"tcp\":\"x\",\"http\":\"y\"}} | INVALID_VALUE | transport",
    "negative id                       | {\"type\":\"Endpoint\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":-1,\"transport\":{\"tcp\":\"x\"}} | INVALID_VALUE | instance_id",
    "fractional id                     | {\"type\":\"Endpoint\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1.5,\"transport\":{\"tcp\":\"x\"}} | INVALID_VALUE | instance_id",
    "string id                         | {\"type\":\"Endpoint\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":\"1\",\"transport\":{\"tcp\":\"x\"}} | WRONG_TYPE | instance_id",
    "empty namespace                   | {\"type\":\"Endpoint\",\"namespace\":\"\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1,\"transport\":{\"tcp\":\"x\"}} | INVALID_VALUE | namespace",
    "slash in namespace                | {\"type\":\"Endpoint\",\"namespace\":\"a/b\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1,\"transport\":{\"tcp\":\"x\"}} | INVALID_VALUE | namespace",
    "card not an object                | {\"type\":\"Model\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1,\"card_json\":\"x\"} | WRONG_TYPE | card_json",
    "bad card field                    | {\"type\":\"Model\",\"namespace\":\"n\",\"component\":\"c\",\"endpoint\":\"e\",\"instance_id\":1,\"card_json\":{\"display_name\":\"m\",\"kv_cache_block_size\":4294967296}} | INVALID_VALUE | card_json.kv_cache_block_size",
    "unknown scope kind                | {\"type\":\"EventChannel\",\"scope\":{\"kind\":\"galaxy\"},\"topic\":\"t\",\"instance_id\":1,\"transport\":{\"kind\":\"Zmq\",\"config\":{\"endpoint\":\"e\"}}} | UNKNOWN_TYPE | scope.kind",
    "unknown channel kind              | {\"type\":\"EventChannel\",\"scope\":{\"kind\":\"namespace\",\"name\":\"n\"},\"topic\":\"t\",\"instance_id\":1,\"transport\":{\"kind\":\"Kafka\",\"config\":{}}} | UNKNOWN_TYPE | transport.kind",
    "empty topic                       | {\"type\":\"EventChannel\",\"scope\":{\"kind\":\"namespace\",\"name\":\"n\"},\"topic\":\"\",\"instance_id\":1,\"transport\":{\"kind\":\"Zmq\",\"config\":{\"endpoint\":\"e\"}}} | INVALID_VALUE | topic",
    "publisher ids differ              | {\"type\":\"EventSource\",\"scope\":{\"kind\":\"namespace\",\"name\":\"n\"},\"topic\":\"kv-events\",\"publisher_id\":1,\"metadata\":{\"kv_state_endpoint\":{\"namespace\":\"n\",\"component\":\"c\",\"name\":\"e\"},\"worker\":{\"worker_id\":2,\"dp_rank\":0},\"publisher_id\":3}} | INVALID_VALUE | metadata.publisher_id",
    "dp_rank beyond u32                | {\"type\":\"EventSource\",\"scope\":{\"kind\":\"namespace\",\"name\":\"n\"},\"topic\":\"kv-events\",\"publisher_id\":1,\"metadata\":{\"kv_state_endpoint\":{\"namespace\":\"n\",\"component\":\"c\",\"name\":\"e\"},\"worker\":{\"worker_id\":2,\"dp_rank\":4294967296},\"publisher_id\":1}} | INVALID_VALUE | metadata.worker.dp_rank",
    "kv_state_endpoint without name    | {\"type\":\"EventSource\",\"scope\":{\"kind\":\"namespace\",\"name\":\"n\"},\"topic\":\"kv-events\",\"publisher_id\":1,\"metadata\":{\"kv_state_endpoint\":{\"namespace\":\"n\",\"component\":\"c\"},\"worker\":{\"worker_id\":2,\"dp_rank\":0},\"publisher_id\":1}} | MISSING_FIELD | metadata.kv_state_endpoint.name",
    "bad recovery target               | {\"type\":\"EventSource\",\"scope\":{\"kind\":\"namespace\",\"name\":\"n\"},\"topic\":\"kv-events\",\"publisher_id\":1,\"metadata\":{\"kv_state_endpoint\":{\"namespace\":\"n\",\"component\":\"c\",\"name\":\"e\"},\"worker\":{\"worker_id\":2,\"dp_rank\":0},\"publisher_id\":1,\"recovery_target\":{\"namespace\":\"n\"}}} | MISSING_FIELD | metadata.recovery_target.component",
  })
  void malformedValuesAreTypedErrors(String name, String json, DiscoveryDecodeException.Reason reason, String field) {
    DiscoveryDecodeException e = catchThrowableOfType(DiscoveryDecodeException.class, () -> DiscoveryCodec.decode(json));
    assertThat(e).as(name).isNotNull();
    assertThat(e.reason()).as(name).isEqualTo(reason);
    assertThat(e.field()).as(name).isEqualTo(field);
    assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.MALFORMED_ENTRY);
  }

  @Test
  void invalidUtf8IsInvalidJson() {
    byte[] bad = {'{', '"', (byte) 0xFF, '"', ':', '1', '}'};
    assertThat(catchThrowableOfType(DiscoveryDecodeException.class, () -> DiscoveryCodec.decode(bad)).reason())
        .isEqualTo(DiscoveryDecodeException.Reason.INVALID_JSON);
  }

  @Test
  void zmqBrokerChannelRoundTrips() throws Exception {
    String json = "{\"type\":\"EventChannel\",\"scope\":{\"kind\":\"component\",\"namespace\":\"dynamo\",\"component\":\"zmq_broker\"},"
        + "\"topic\":\"kv-events\",\"instance_id\":7,\"transport\":{\"kind\":\"ZmqBroker\",\"config\":"
        + "{\"xsub_endpoints\":[\"tcp://a:1\",\"tcp://b:1\"],\"xpub_endpoints\":[\"tcp://c:2\"]}}}";
    EventChannelRecord r = (EventChannelRecord) DiscoveryCodec.decode(json);
    assertThat(r.transport()).isEqualTo(new ChannelTransport.ZmqBroker(List.of("tcp://a:1", "tcp://b:1"), List.of("tcp://c:2")));
    assertThat(r.key().path()).isEqualTo("namespace/dynamo/component/zmq_broker/topic/kv-events/7");
    assertThat(DiscoveryCodec.encode(r)).isEqualTo(Json.parse(json));
  }
}
