package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: {@code DiscoveryInstance} JSON ({@code runtime-inputs.md} §1.2) to and from
 * {@link DiscoveryRecord}s, and the Kubernetes {@code DynamoWorkerMetadata} {@code spec.data} maps
 * (§3.1) to records.
 *
 * <p>Reading is lenient where upstream readers are: unknown fields are ignored, JSON null equals absent,
 * transport tags are matched ignoring case and underscores, and the legacy flat EventChannel shape is
 * accepted. Ids are read as unsigned 64-bit integers. Everything else that does not fit is a {@link
 * DiscoveryDecodeException}; nothing unchecked escapes for any input.
 *
 * <p>Writing produces the newest shape (EventChannel with {@code scope}), with ids as unsigned decimal
 * numbers; {@code decode(encode(r)).equals(r)} for every record.
 */
public final class DiscoveryCodec {

  /**
   * Immutable and thread-safe: the records of one {@code spec.data}, and the entries that were skipped.
   *
   * @param records the decoded records, in map order (endpoints, model cards, event channels, event sources)
   * @param skipped one exception per malformed entry, located at {@code map/key}
   */
  public record WorkerMetadata(List<DiscoveryRecord> records, List<DiscoveryDecodeException> skipped) {
    /** Copies the lists. */
    public WorkerMetadata {
      records = List.copyOf(records);
      skipped = List.copyOf(skipped);
    }
  }

  private DiscoveryCodec() {}

  /** Decodes one {@code DiscoveryInstance} from JSON text. */
  public static DiscoveryRecord decode(String json) throws DiscoveryDecodeException {
    return decode(parse(() -> Json.parse(json)));
  }

  /** Decodes one {@code DiscoveryInstance} from UTF-8 JSON (an etcd value). */
  public static DiscoveryRecord decode(byte[] utf8) throws DiscoveryDecodeException {
    return decode(parse(() -> Json.parse(utf8)));
  }

  /**
   * Decodes a value stored at {@code path} of {@code kind}'s bucket (an etcd key) and checks that the key
   * is the record's: the kind must match the {@code "type"} and the path the record's path.
   *
   * @throws DiscoveryDecodeException located at the storage key; {@code KEY_MISMATCH} if key and value disagree
   */
  public static DiscoveryRecord decodeAt(DiscoveryKind kind, String path, byte[] utf8) throws DiscoveryDecodeException {
    String storageKey = kind.bucket() + "/" + path;
    try {
      DiscoveryRecord record = decode(utf8);
      if (record.key().kind() != kind) {
        throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.KEY_MISMATCH, "type",
            "a " + record.key().kind().typeTag() + " value is stored under the " + kind.bucket() + " bucket");
      }
      if (!record.key().path().equals(path)) {
        throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.KEY_MISMATCH, "",
            "the value's discovery id has path " + record.key().path());
      }
      return record;
    } catch (DiscoveryDecodeException e) {
      throw e.at(storageKey);
    }
  }

  /** Decodes one parsed {@code DiscoveryInstance}. */
  public static DiscoveryRecord decode(JsonValue value) throws DiscoveryDecodeException {
    Fields f = Fields.of(value, "");
    String type = f.requiredString("type");
    return switch (type) {
      case "Endpoint" -> endpoint(f);
      case "Model" -> model(f);
      case "EventChannel" -> eventChannel(f);
      case "EventSource" -> eventSource(f);
      default -> throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.UNKNOWN_TYPE, "type",
            "unknown DiscoveryInstance type '" + type + "'");
    };
  }

  /**
   * Decodes a {@code DynamoWorkerMetadata} {@code spec.data}: four maps ({@code endpoints}, {@code
   * model_cards}, {@code event_channels}, {@code event_sources}) from path to {@code DiscoveryInstance};
   * missing or null maps are empty. Map keys are not checked against the values (legacy writers used other
   * key forms), but each value's type must belong to its map. Malformed entries are skipped and reported;
   * a second entry with the same discovery id is skipped as {@code KEY_MISMATCH}.
   *
   * @throws DiscoveryDecodeException if {@code spec.data} itself or one of its maps is not an object
   */
  public static WorkerMetadata decodeWorkerMetadata(@Nullable JsonValue specData) throws DiscoveryDecodeException {
    Fields data = Fields.of(specData, "spec.data");
    List<DiscoveryRecord> records = new ArrayList<>();
    List<DiscoveryDecodeException> skipped = new ArrayList<>();
    Set<DiscoveryKey> seen = new HashSet<>();
    for (DiscoveryKind kind : DiscoveryKind.values()) {
      Fields map = data.optionalObject(kind.mapName());
      if (map == null) {
        continue;
      }
      for (Map.Entry<String, JsonValue> e : map.object().members().entrySet()) {
        String entry = kind.mapName() + "/" + e.getKey();
        try {
          DiscoveryRecord record = decode(e.getValue());
          if (record.key().kind() != kind) {
            throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.KEY_MISMATCH, "type",
                "a " + record.key().kind().typeTag() + " value in the " + kind.mapName() + " map");
          }
          if (!seen.add(record.key())) {
            throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.KEY_MISMATCH, "",
                "another entry has the same discovery id " + record.key().path());
          }
          records.add(record);
        } catch (DiscoveryDecodeException ex) {
          skipped.add(ex.at(entry));
        }
      }
    }
    return new WorkerMetadata(records, skipped);
  }

  /** The {@code spec.data} object holding {@code records}, each keyed by its §1.4 path, sorted. */
  public static JsonObject encodeWorkerMetadata(Collection<? extends DiscoveryRecord> records) {
    Map<DiscoveryKind, Map<String, JsonValue>> maps = new LinkedHashMap<>();
    for (DiscoveryKind kind : DiscoveryKind.values()) {
      maps.put(kind, new LinkedHashMap<>());
    }
    List<DiscoveryRecord> sorted = new ArrayList<>(records);
    sorted.sort((a, b) -> DiscoveryKey.ORDER.compare(a.key(), b.key()));
    for (DiscoveryRecord r : sorted) {
      maps.computeIfAbsent(r.key().kind(), k -> new LinkedHashMap<>()).put(r.key().path(), encode(r));
    }
    JsonObject.Builder b = JsonObject.builder();
    for (Map.Entry<DiscoveryKind, Map<String, JsonValue>> e : maps.entrySet()) {
      b.put(e.getKey().mapName(), new JsonObject(e.getValue()));
    }
    return b.build();
  }

  /** The {@code DiscoveryInstance} JSON of {@code record}. */
  public static JsonObject encode(DiscoveryRecord record) {
    if (record instanceof EndpointRecord endpointRecord) {
      return instanceFields(JsonObject.builder().put("type", "Endpoint"), endpointRecord).build();
    }
    if (record instanceof ModelRecord m) {
      return endpointFields(JsonObject.builder().put("type", "Model"), m.key().endpoint())
          .put("instance_id", JsonNumber.ofUnsigned(m.key().instanceId()))
          .put("card_json", m.rawCard())
          .putIfPresent("model_suffix", m.key().suffix())
          .build();
    }
    if (record instanceof EventChannelRecord c) {
      return JsonObject.builder()
          .put("type", "EventChannel")
          .put("scope", scope(c.key().scope()))
          .put("topic", c.key().topic())
          .put("instance_id", JsonNumber.ofUnsigned(c.key().instanceId()))
          .put("transport", channelTransport(c.transport()))
          .build();
    }
    EventSourceRecord s = (EventSourceRecord) record;
    KvEventSource src = s.source();
    JsonObject.Builder metadata = JsonObject.builder()
        .put("kv_state_endpoint", endpointId(src.kvStateEndpoint()))
        .put("worker", JsonObject.builder()
            .put("worker_id", JsonNumber.ofUnsigned(src.workerId()))
            .put("dp_rank", src.dpRank())
            .build())
        .put("publisher_id", JsonNumber.ofUnsigned(src.publisherId()));
    if (src.recoveryTarget() != null) {
      metadata.put("recovery_target", instanceFields(JsonObject.builder(), src.recoveryTarget()).build());
    }
    return JsonObject.builder()
        .put("type", "EventSource")
        .put("scope", scope(s.key().scope()))
        .put("topic", s.key().topic())
        .put("publisher_id", JsonNumber.ofUnsigned(s.key().publisherId()))
        .put("metadata", metadata.build())
        .build();
  }

  /** The compact JSON text of {@code record}. */
  public static String encodeToString(DiscoveryRecord record) {
    return Json.write(encode(record));
  }

  // ---- decoding ----

  /** Stateless and thread-safe: a deferred parse, so both input forms share one error mapping. */
  private interface JsonSource {
    JsonValue parse() throws JsonException;
  }

  private static JsonValue parse(JsonSource source) throws DiscoveryDecodeException {
    try {
      return source.parse();
    } catch (JsonException e) {
      throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_JSON, "", "",
          "invalid JSON: " + e.getMessage(), e);
    }
  }

  private static DynamoEndpointId servingEndpoint(Fields f) throws DiscoveryDecodeException {
    String ns = f.requiredString("namespace");
    String comp = f.requiredString("component");
    String ep = f.requiredString("endpoint");
    try {
      return DynamoEndpointId.fromWire(ns, comp, ep);
    } catch (WireValidationException e) {
      throw Fields.invalid(f.field(e.field()), e.detail());
    }
  }

  private static EndpointRecord endpoint(Fields f) throws DiscoveryDecodeException {
    DynamoEndpointId endpoint = servingEndpoint(f);
    long id = f.requiredU64("instance_id");
    Transport transport = transport(f.requiredObject("transport"));
    String codec = f.optionalString("request_plane_codec");
    String device = f.optionalString("device_type");
    try {
      return new EndpointRecord(new EndpointKey(endpoint, id), transport, codec, device);
    } catch (IllegalArgumentException e) {
      throw Fields.invalid(f.field("namespace"), String.valueOf(e.getMessage()));
    }
  }

  private static Transport transport(Fields t) throws DiscoveryDecodeException {
    Map<String, JsonValue> members = t.object().members();
    if (members.size() != 1) {
      throw Fields.invalid(t.path(), "a transport has exactly one tag, got " + members.size());
    }
    Map.Entry<String, JsonValue> only = members.entrySet().iterator().next();
    if (!(only.getValue() instanceof JsonString)) {
      throw Fields.wrongType(t.field(only.getKey()), "a string", only.getValue());
    }
    String value = ((JsonString) only.getValue()).value();
    return switch (normalizedTag(only.getKey())) {
      case "tcp" -> new Transport.Tcp(value);
      case "natstcp", "nats" -> new Transport.NatsTcp(value);
      case "http" -> new Transport.Http(value);
      default -> throw new DiscoveryDecodeException(
          DiscoveryDecodeException.Reason.UNKNOWN_TYPE, t.field(only.getKey()),
          "unknown transport '" + only.getKey() + "'");
    };
  }

  private static String normalizedTag(String tag) {
    return tag.replace("_", "").toLowerCase(Locale.ROOT);
  }

  private static ModelRecord model(Fields f) throws DiscoveryDecodeException {
    DynamoEndpointId endpoint = servingEndpoint(f);
    long id = f.requiredU64("instance_id");
    String suffix = f.optionalString("model_suffix");
    Fields card = f.requiredObject("card_json");
    ModelKey key;
    try {
      key = new ModelKey(endpoint, id, suffix);
    } catch (IllegalArgumentException e) {
      throw Fields.invalid(f.path(), String.valueOf(e.getMessage()));
    }
    return ModelRecord.of(key, card.object());
  }

  private static EventScope scope(Fields s) throws DiscoveryDecodeException {
    String kind = s.requiredString("kind");
    try {
      return switch (normalizedTag(kind)) {
        case "namespace" -> new EventScope.Namespace(s.requiredString("name"));
        case "component" -> new EventScope.Component(s.requiredString("namespace"), s.requiredString("component"));
        case "endpoint" -> new EventScope.Endpoint(RuntimeConfig.endpointId(s.requiredObject("endpoint")));
        default -> throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.UNKNOWN_TYPE, s.field("kind"),
              "unknown scope kind '" + kind + "'");
      };
    } catch (IllegalArgumentException e) {
      throw Fields.invalid(s.path(), String.valueOf(e.getMessage()));
    }
  }

  private static EventChannelRecord eventChannel(Fields f) throws DiscoveryDecodeException {
    EventScope scope;
    if (f.has("scope")) {
      scope = scope(f.requiredObject("scope"));
    } else {
      String ns = f.requiredString("namespace");
      String comp = f.optionalString("component");
      try {
        scope = comp == null || comp.isEmpty() ? new EventScope.Namespace(ns) : new EventScope.Component(ns, comp);
      } catch (IllegalArgumentException e) {
        throw Fields.invalid(f.field("namespace"), String.valueOf(e.getMessage()));
      }
    }
    String topic = f.requiredString("topic");
    long id = f.requiredU64("instance_id");
    ChannelTransport transport = channelTransport(f.requiredObject("transport"));
    try {
      return new EventChannelRecord(new EventChannelKey(scope, topic, id), transport);
    } catch (IllegalArgumentException e) {
      throw Fields.invalid(f.field("topic"), String.valueOf(e.getMessage()));
    }
  }

  private static ChannelTransport channelTransport(Fields t) throws DiscoveryDecodeException {
    String kind = t.requiredString("kind");
    Fields config = t.requiredObject("config");
    return switch (normalizedTag(kind)) {
      case "nats" -> new ChannelTransport.Nats(config.requiredString("subject_prefix"));
      case "zmq" -> new ChannelTransport.Zmq(config.requiredString("endpoint"));
      case "zmqbroker" -> new ChannelTransport.ZmqBroker(
          config.stringList("xsub_endpoints"), config.stringList("xpub_endpoints"));
      default -> throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.UNKNOWN_TYPE, t.field("kind"),
            "unknown event transport kind '" + kind + "'");
    };
  }

  private static EventSourceRecord eventSource(Fields f) throws DiscoveryDecodeException {
    EventScope scope = scope(f.requiredObject("scope"));
    String topic = f.requiredString("topic");
    long publisherId = f.requiredU64("publisher_id");
    Fields m = f.requiredObject("metadata");
    DynamoEndpointId kvState = RuntimeConfig.endpointId(m.requiredObject("kv_state_endpoint"));
    Fields worker = m.requiredObject("worker");
    long workerId = worker.requiredU64("worker_id");
    long dpRank = worker.requiredU32("dp_rank");
    long metadataPublisher = m.requiredU64("publisher_id");
    if (metadataPublisher != publisherId) {
      throw Fields.invalid(m.field("publisher_id"), "metadata.publisher_id " + Long.toUnsignedString(metadataPublisher)
          + " differs from publisher_id " + Long.toUnsignedString(publisherId));
    }
    EndpointRecord recovery = null;
    Fields target = m.optionalObject("recovery_target");
    if (target != null) {
      recovery = endpoint(target);
    }
    EventSourceKey key;
    try {
      key = new EventSourceKey(scope, topic, publisherId);
    } catch (IllegalArgumentException e) {
      throw Fields.invalid(f.field("topic"), String.valueOf(e.getMessage()));
    }
    return new EventSourceRecord(key, new KvEventSource(kvState, workerId, dpRank, publisherId, recovery));
  }

  // ---- encoding ----

  private static JsonObject.Builder endpointFields(JsonObject.Builder b, DynamoEndpointId e) {
    return b.put("namespace", e.namespace()).put("component", e.component()).put("endpoint", e.endpoint());
  }

  private static JsonObject.Builder instanceFields(JsonObject.Builder b, EndpointRecord r) {
    return endpointFields(b, r.key().endpoint())
        .put("instance_id", JsonNumber.ofUnsigned(r.key().instanceId()))
        .put("transport", JsonObject.builder().put(r.transport().tag(), r.transport().value()).build())
        .putIfPresent("device_type", r.deviceType())
        .putIfPresent("request_plane_codec", r.requestPlaneCodec());
  }

  private static JsonObject endpointId(DynamoEndpointId e) {
    return JsonObject.builder().put("namespace", e.namespace()).put("component", e.component())
        .put("name", e.endpoint()).build();
  }

  private static JsonObject scope(EventScope scope) {
    if (scope instanceof EventScope.Namespace) {
      return JsonObject.builder().put("kind", "namespace").put("name", scope.namespace()).build();
    }
    if (scope instanceof EventScope.Component component) {
      return JsonObject.builder().put("kind", "component").put("namespace", scope.namespace())
          .put("component", component.component()).build();
    }
    return JsonObject.builder().put("kind", "endpoint")
        .put("endpoint", endpointId(((EventScope.Endpoint) scope).endpoint())).build();
  }

  private static JsonObject channelTransport(ChannelTransport t) {
    JsonObject config;
    if (t instanceof ChannelTransport.Nats nats) {
      config = JsonObject.builder().put("subject_prefix", nats.subjectPrefix()).build();
    } else if (t instanceof ChannelTransport.Zmq zmq) {
      config = JsonObject.builder().put("endpoint", zmq.endpoint()).build();
    } else {
      ChannelTransport.ZmqBroker b = (ChannelTransport.ZmqBroker) t;
      config = JsonObject.builder()
          .put("xsub_endpoints", JsonArray.ofStrings(b.xsubEndpoints()))
          .put("xpub_endpoints", JsonArray.ofStrings(b.xpubEndpoints()))
          .build();
    }
    return JsonObject.builder().put("kind", t.kindTag()).put("config", config).build();
  }
}
