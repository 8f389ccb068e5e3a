package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonObject;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Stateless and thread-safe: small record fixtures for discovery tests and backend contract tests. */
public final class TestRecords {
  private TestRecords() {}

  /** An endpoint id. */
  public static DynamoEndpointId ep(String namespace, String component, String endpoint) {
    return new DynamoEndpointId(namespace, component, endpoint);
  }

  /** An endpoint instance with a TCP transport. */
  public static EndpointRecord endpoint(String ns, String comp, String ep, long instanceId, String address) {
    return new EndpointRecord(new EndpointKey(ep(ns, comp, ep), instanceId), new Transport.Tcp(address), "msgpack", null);
  }

  /** A minimal card JSON: display name, block size 16, given taints. */
  public static JsonObject card(String displayName, List<String> taints) {
    return JsonObject.builder()
        .put("display_name", displayName)
        .put("kv_cache_block_size", 16)
        .put("worker_type", "aggregated")
        .put("runtime_config", JsonObject.builder().put("taints", JsonArray.ofStrings(taints)).build())
        .build();
  }

  /** A model card record (an adapter card gets a {@code lora} object and the suffix). */
  public static ModelRecord model(String ns, String comp, String ep, long instanceId, @Nullable String suffix,
      String displayName) {
    JsonObject card = card(displayName, List.of());
    if (suffix != null) {
      card = card.with("lora", JsonObject.builder().put("name", suffix).build());
    }
    try {
      return ModelRecord.of(new ModelKey(ep(ns, comp, ep), instanceId, suffix), card);
    } catch (DiscoveryDecodeException e) {
      throw new AssertionError(e);
    }
  }

  /** A KV event source advertised at endpoint scope of its kv-state endpoint, with a recovery target. */
  public static EventSourceRecord eventSource(String ns, String comp, String ep, long publisherId, long workerId,
      long dpRank) {
    DynamoEndpointId endpoint = ep(ns, comp, ep);
    return new EventSourceRecord(
        new EventSourceKey(new EventScope.Endpoint(endpoint), "kv-events", publisherId),
        new KvEventSource(endpoint, workerId, dpRank, publisherId,
            endpoint(ns, comp, ep, workerId, "10.0.0.1:9999/" + ep)));
  }

  /** A ZMQ event channel at endpoint scope. */
  public static EventChannelRecord eventChannel(String ns, String comp, String ep, long instanceId, String zmqEndpoint) {
    return new EventChannelRecord(
        new EventChannelKey(new EventScope.Endpoint(ep(ns, comp, ep)), "kv-events", instanceId),
        new ChannelTransport.Zmq(zmqEndpoint));
  }

  /** One record of each kind for the endpoint {@code ns/backend/generate}, ids derived from {@code id}. */
  public static List<DiscoveryRecord> oneOfEachKind(String ns, long id) {
    return List.of(
        endpoint(ns, "backend", "generate", id, "10.0.0.1:9999/generate"),
        model(ns, "backend", "generate", id, null, "Qwen/Qwen3-0.6B"),
        eventSource(ns, "backend", "generate", id + 1000, id, 0),
        eventChannel(ns, "backend", "generate", id + 1000, "tcp://10.0.0.1:41877"));
  }

  /** The records keyed by their keys. */
  public static Map<DiscoveryKey, DiscoveryRecord> byKey(Collection<? extends DiscoveryRecord> records) {
    Map<DiscoveryKey, DiscoveryRecord> out = new LinkedHashMap<>();
    for (DiscoveryRecord r : records) {
      out.put(r.key(), r);
    }
    return out;
  }
}
