package dev.kvrelay.grpc.proto;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * wan-grpc.md §1.2–§1.7: the generated service lists exactly the six RPCs with their shapes and full names, and
 * relay.proto matches the spec tables field by field (number, label, type, name) and value by value for every enum.
 * The expected tables below are transcribed by hand from the spec, never derived from the descriptor.
 */
class KvEventRelayServiceDescriptorTest {

  private static final String SERVICE = "dynamo.kvrelay.v1.KvEventRelay";

  @Test
  void generatedServiceHasExactlyTheSixRpcsWithTheirStreamingShapes() {
    ServiceDescriptor service = KvEventRelayGrpc.getServiceDescriptor();
    assertThat(service.getName()).isEqualTo(SERVICE);
    Map<String, MethodDescriptor.MethodType> methods = new TreeMap<>();
    for (MethodDescriptor<?, ?> m : service.getMethods()) {
      methods.put(m.getFullMethodName(), m.getType());
    }
    assertThat(methods).containsExactlyInAnyOrderEntriesOf(Map.of(
        SERVICE + "/GetRelayInfo", MethodDescriptor.MethodType.UNARY,
        SERVICE + "/WatchKvPoolCatalog", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeKvPool", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeServingReadiness", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeKvPoolLoad", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeServingLoad", MethodDescriptor.MethodType.SERVER_STREAMING));
  }

  @Test
  void methodPathsAreSlashServiceSlashRpc() {
    assertThat("/" + KvEventRelayGrpc.getSubscribeServingLoadMethod().getFullMethodName())
        .isEqualTo("/dynamo.kvrelay.v1.KvEventRelay/SubscribeServingLoad");
    assertThat(KvEventRelayGrpc.getGetRelayInfoMethod().getFullMethodName())
        .isEqualTo("dynamo.kvrelay.v1.KvEventRelay/GetRelayInfo");
  }

  @Test
  void rpcRequestAndResponseTypesFollowTheSpecTable() {
    Descriptors.ServiceDescriptor service = RelayProto.getDescriptor().findServiceByName("KvEventRelay");
    Map<String, String> shapes = new TreeMap<>();
    for (Descriptors.MethodDescriptor m : service.getMethods()) {
      shapes.put(m.getName(), m.getInputType().getName() + " -> " + (m.isServerStreaming() ? "stream " : "")
          + m.getOutputType().getName() + (m.isClientStreaming() ? " (client streaming)" : ""));
    }
    assertThat(shapes).containsExactlyInAnyOrderEntriesOf(Map.of(
        "GetRelayInfo", "RelayInfoRequest -> RelayInfo",
        "WatchKvPoolCatalog", "WatchKvPoolCatalogRequest -> stream KvPoolCatalogUpdate",
        "SubscribeKvPool", "SubscribeKvPoolRequest -> stream FilterUpdate",
        "SubscribeServingReadiness", "SubscribeServingReadinessRequest -> stream ServingReadinessUpdate",
        "SubscribeKvPoolLoad", "SubscribeKvPoolLoadRequest -> stream KvPoolLoadUpdate",
        "SubscribeServingLoad", "SubscribeServingLoadRequest -> stream ServingLoadUpdate"));
  }

  @Test
  void packageIsDynamoKvrelayV1AndKvPoolLoadEntryReservesSixToTwelve() {
    // Decision (wan-grpc.md §1.6): reserve the removed KvPoolLoadEntry fields 6-12 rather than copy as-is.
    Descriptors.FileDescriptor file = RelayProto.getDescriptor();
    assertThat(file.getPackage()).isEqualTo("dynamo.kvrelay.v1");
    Descriptors.Descriptor entry = KvPoolLoadEntry.getDescriptor();
    assertThat(entry.getFields()).hasSize(5);
    for (int n = 6; n <= 12; n++) {
      assertThat(entry.isReservedNumber(n)).as("field %d reserved", n).isTrue();
    }
    assertThat(entry.isReservedNumber(13)).isFalse();
  }

  /**
   * The messages of wan-grpc.md §1.4–§1.7, transcribed from the spec tables: one entry per message, one string per
   * field, "number [repeated|optional|oneof NAME] type name".
   */
  static final Map<String, List<String>> SPEC_MESSAGES = specMessages();

  private static Map<String, List<String>> specMessages() {
    Map<String, List<String>> m = new LinkedHashMap<>();
    // §1.4 identity messages
    m.put("RelayIdentity", List.of("1 fixed64 drt_instance_id", "2 fixed64 relay_incarnation"));
    m.put("DigestIdentity", List.of("1 bytes digest", "2 IdentitySource source"));
    m.put("IndexerDomainId", List.of("1 DigestIdentity cache_semantics", "2 DigestIdentity routing_scope"));
    m.put("KvPoolId", List.of("1 uint32 identity_version", "2 IndexerDomainId indexer_domain", "3 fixed64 dc_id"));
    m.put("CkfFormat", List.of("1 uint32 format_version", "2 fixed64 seed", "3 uint64 bucket_count",
        "4 uint32 fingerprint_bits", "5 uint32 slots_per_bucket"));
    m.put("ProducerIdentity", List.of("1 KvPoolId pool_id", "2 fixed64 producer_incarnation",
        "3 uint64 layout_generation", "4 CkfFormat ckf_format"));
    // §1.5 catalog messages
    m.put("DynamoEndpointId", List.of("1 string namespace", "2 string component", "3 string endpoint"));
    m.put("BaseModelTarget", List.of("1 string base_model"));
    m.put("LoraModelTarget", List.of("1 string base_model", "2 string adapter"));
    m.put("ModelTarget", List.of("1 oneof target BaseModelTarget base", "2 oneof target LoraModelTarget lora"));
    m.put("ModelRegistration", List.of("1 string canonical_model_id", "2 ModelTarget target",
        "3 repeated string aliases"));
    m.put("KvQuerySemantics", List.of("1 uint32 kv_block_size", "2 KvQueryHashFormat hash_format"));
    m.put("KvPoolDescriptor", List.of("1 ProducerIdentity producer", "2 DynamoEndpointId serving_endpoint",
        "3 repeated ModelRegistration registrations", "4 KvQuerySemantics query_semantics",
        "5 repeated WorkerRole pool_roles"));
    m.put("KvPoolCatalogSnapshot", List.of("1 repeated KvPoolDescriptor pools"));
    // §1.6 requests and responses
    m.put("RelayInfoRequest", List.of("127 fixed32 contract_marker"));
    m.put("RelayInfo", List.of("1 uint32 protocol_version", "2 RelayIdentity relay", "127 fixed32 contract_marker"));
    m.put("WatchKvPoolCatalogRequest", List.of("1 string subscriber_id", "127 fixed32 contract_marker"));
    m.put("KvPoolCatalogUpdate", List.of("1 uint32 protocol_version", "2 RelayIdentity relay", "3 uint64 revision",
        "4 KvPoolCatalogSnapshot snapshot", "127 fixed32 contract_marker"));
    m.put("SubscribeKvPoolRequest", List.of("1 string subscriber_id", "2 ProducerIdentity expected_producer",
        "127 fixed32 contract_marker"));
    m.put("FilterUpdate", List.of("1 uint32 protocol_version", "2 RelayIdentity relay", "3 ProducerIdentity producer",
        "4 uint64 base_sequence", "5 uint64 sequence", "6 uint64 send_ts_us", "7 FilterUpdateKind kind",
        "8 bytes payload", "127 fixed32 contract_marker"));
    m.put("SubscribeServingReadinessRequest", List.of("1 string subscriber_id", "127 fixed32 contract_marker"));
    m.put("TopologyMember", List.of("1 DynamoEndpointId endpoint", "2 repeated WorkerRole roles",
        "3 optional KvPoolId pool_id"));
    m.put("AdapterReadiness", List.of("1 string canonical_model_id", "2 ServingReadinessState state",
        "3 repeated WorkerRole missing_roles"));
    m.put("TopologyEntry", List.of("1 string namespace", "2 string canonical_model_id",
        "3 ServingReadinessState state", "4 repeated WorkerRole present_roles", "5 repeated WorkerRole missing_roles",
        "6 repeated TopologyMember members", "7 repeated WorkerRole duplicate_role_endpoints",
        "8 bool legacy_fallback_active", "9 repeated AdapterReadiness adapters"));
    m.put("ServingReadinessUpdate", List.of("1 uint32 protocol_version", "2 RelayIdentity relay",
        "3 uint64 revision", "4 repeated TopologyEntry entries", "127 fixed32 contract_marker"));
    m.put("SubscribeKvPoolLoadRequest", List.of("1 string subscriber_id", "127 fixed32 contract_marker"));
    m.put("KvPoolLoadEntry", List.of("1 ProducerIdentity producer", "2 uint64 kv_used_blocks",
        "3 uint64 total_kv_blocks", "4 uint32 kv_observed_ranks", "5 uint32 kv_expected_ranks"));
    m.put("KvPoolLoadUpdate", List.of("1 uint32 protocol_version", "2 RelayIdentity relay",
        "3 uint64 window_sequence", "4 uint64 observed_ms", "5 uint64 window_ms", "6 repeated KvPoolLoadEntry pools",
        "127 fixed32 contract_marker"));
    // §1.7 serving load
    m.put("SubscribeServingLoadRequest", List.of("1 string subscriber_id", "127 fixed32 contract_marker"));
    m.put("RequestLifecycleStats", List.of("1 uint64 requests_started_total", "2 uint64 requests_completed_total",
        "3 uint64 requests_failed_total", "4 uint64 requests_cancelled_total",
        "5 optional uint64 requests_awaiting_first_token", "6 optional uint64 requests_generating"));
    m.put("TokenLoadStats", List.of("1 optional uint64 active_prefill_tokens",
        "2 optional uint64 active_decode_blocks", "3 optional uint64 awaiting_first_token_input_tokens",
        "4 optional uint64 inflight_input_tokens", "5 optional uint64 input_tokens_total",
        "6 optional uint64 output_tokens_total"));
    m.put("LoadView", List.of("1 RequestLifecycleStats requests", "2 TokenLoadStats tokens", "3 DataStatus status",
        "4 uint64 source_observed_ms"));
    m.put("PoolDeploymentStatus", List.of("1 optional uint64 live_workers", "2 optional uint64 max_concurrency"));
    m.put("PoolServingLoad", List.of("1 ProducerIdentity producer", "2 LoadView load",
        "3 PoolDeploymentStatus deployment"));
    m.put("ModelDeploymentStatus", List.of("1 uint64 expected_frontends", "2 uint64 observed_frontends",
        "3 uint64 ready_frontends", "4 repeated KvPoolId serving_pools"));
    m.put("ModelServingLoad", List.of("1 string namespace", "2 string canonical_model_id", "3 LoadView load",
        "4 ModelDeploymentStatus deployment"));
    m.put("ServingLoadUpdate", List.of("1 uint32 protocol_version", "2 RelayIdentity relay",
        "3 uint64 window_sequence", "4 uint64 observed_ms", "5 uint64 window_ms", "6 repeated PoolServingLoad pools",
        "7 repeated ModelServingLoad models", "127 fixed32 contract_marker"));
    return m;
  }

  /** The enums of wan-grpc.md §1.3, transcribed from the spec table: "NAME=number" in declaration order. */
  static final Map<String, List<String>> SPEC_ENUMS = Map.of(
      "RelayErrorReason", List.of("RELAY_ERROR_REASON_UNSPECIFIED=0", "RELAY_ERROR_REASON_CONTRACT_MISMATCH=1",
          "RELAY_ERROR_REASON_INVALID_REQUEST=2", "RELAY_ERROR_REASON_UNSUPPORTED_FEATURE=3",
          "RELAY_ERROR_REASON_POOL_NOT_FOUND=4", "RELAY_ERROR_REASON_PRODUCER_CHANGED=5",
          "RELAY_ERROR_REASON_RESOURCE_LIMIT=6", "RELAY_ERROR_REASON_SUBSCRIBER_LAGGED=7",
          "RELAY_ERROR_REASON_SNAPSHOT_PROGRESS_TIMEOUT=8", "RELAY_ERROR_REASON_PUBLICATION_UNAVAILABLE=9",
          "RELAY_ERROR_REASON_INVALID_PUBLICATION=10", "RELAY_ERROR_REASON_INTERNAL=11"),
      "IdentitySource", List.of("IDENTITY_SOURCE_UNSPECIFIED=0", "IDENTITY_SOURCE_DEFAULT_DERIVED=1",
          "IDENTITY_SOURCE_EXPLICIT=2"),
      "FilterUpdateKind", List.of("FILTER_UPDATE_KIND_UNSPECIFIED=0", "FILTER_UPDATE_KIND_SNAPSHOT_CHUNK=1",
          "FILTER_UPDATE_KIND_DELTA=2", "FILTER_UPDATE_KIND_HEARTBEAT=3"),
      "ServingReadinessState", List.of("SERVING_READINESS_STATE_UNKNOWN=0", "SERVING_READINESS_STATE_UNAVAILABLE=1",
          "SERVING_READINESS_STATE_READY=2"),
      "WorkerRole", List.of("WORKER_ROLE_UNSPECIFIED=0", "WORKER_ROLE_PREFILL=1", "WORKER_ROLE_DECODE=2",
          "WORKER_ROLE_ENCODE=3", "WORKER_ROLE_AGGREGATED=4", "WORKER_ROLE_LEGACY=5"),
      "KvQueryHashFormat", List.of("KV_QUERY_HASH_FORMAT_UNSPECIFIED=0", "KV_QUERY_HASH_FORMAT_DYNAMO_STANDARD_V1=1",
          "KV_QUERY_HASH_FORMAT_DYNAMO_EAGLE_V1=2"),
      "DataStatus", List.of("DATA_STATUS_UNSPECIFIED=0", "DATA_STATUS_COMPLETE=1", "DATA_STATUS_DEGRADED=2",
          "DATA_STATUS_UNAVAILABLE=3"));

  /** One field as "number [repeated|optional|oneof NAME] type name". */
  static String describe(Descriptors.FieldDescriptor f) {
    StringBuilder b = new StringBuilder().append(f.getNumber()).append(' ');
    Descriptors.OneofDescriptor oneof = f.getRealContainingOneof();
    if (f.isRepeated()) {
      b.append("repeated ");
    } else if (f.toProto().getProto3Optional()) {
      b.append("optional ");
    } else if (oneof != null) {
      b.append("oneof ").append(oneof.getName()).append(' ');
    }
    switch (f.getType()) {
      case MESSAGE -> b.append(f.getMessageType().getName());
      case ENUM -> b.append(f.getEnumType().getName());
      default -> b.append(f.getType().name().toLowerCase(Locale.ROOT));
    }
    return b.append(' ').append(f.getName()).toString();
  }

  @Test
  void everyMessageOfRelayProtoMatchesTheSpecTablesFieldByField() {
    Descriptors.FileDescriptor file = RelayProto.getDescriptor();
    Map<String, List<String>> actual = new LinkedHashMap<>();
    for (Descriptors.Descriptor message : file.getMessageTypes()) {
      assertThat(message.getNestedTypes()).as("%s has no nested messages", message.getName()).isEmpty();
      List<String> fields = new ArrayList<>();
      for (Descriptors.FieldDescriptor f : message.getFields()) {
        fields.add(describe(f));
      }
      actual.put(message.getName(), fields);
    }
    assertThat(actual.keySet()).as("the messages of §1.4–§1.7, no more, no fewer")
        .containsExactlyInAnyOrderElementsOf(SPEC_MESSAGES.keySet());
    for (Map.Entry<String, List<String>> e : SPEC_MESSAGES.entrySet()) {
      assertThat(actual.get(e.getKey())).as("fields of %s", e.getKey()).containsExactlyElementsOf(e.getValue());
    }
  }

  @Test
  void everyEnumOfRelayProtoMatchesTheSpecTableValueByValue() {
    Map<String, List<String>> actual = new TreeMap<>();
    for (Descriptors.EnumDescriptor en : RelayProto.getDescriptor().getEnumTypes()) {
      List<String> values = new ArrayList<>();
      for (Descriptors.EnumValueDescriptor v : en.getValues()) {
        values.add(v.getName() + "=" + v.getNumber());
      }
      actual.put(en.getName(), values);
    }
    assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(SPEC_ENUMS.keySet());
    for (Map.Entry<String, List<String>> e : SPEC_ENUMS.entrySet()) {
      assertThat(actual.get(e.getKey())).as("values of %s", e.getKey()).containsExactlyElementsOf(e.getValue());
    }
  }

  @Test
  void describeRendersLabelsAndTypesAsTheTablesWriteThem() {
    // guards the renderer itself, so a renderer bug cannot make both sides agree vacuously
    assertThat(describe(TopologyMember.getDescriptor().findFieldByName("pool_id")))
        .isEqualTo("3 optional KvPoolId pool_id");
    assertThat(describe(ModelTarget.getDescriptor().findFieldByName("lora")))
        .isEqualTo("2 oneof target LoraModelTarget lora");
    assertThat(describe(TopologyEntry.getDescriptor().findFieldByName("members")))
        .isEqualTo("6 repeated TopologyMember members");
    assertThat(describe(FilterUpdate.getDescriptor().findFieldByName("contract_marker")))
        .isEqualTo("127 fixed32 contract_marker");
    assertThat(TopologyMember.getDescriptor().findFieldByName("pool_id").getType())
        .isEqualTo(Descriptors.FieldDescriptor.Type.MESSAGE);
  }
}
