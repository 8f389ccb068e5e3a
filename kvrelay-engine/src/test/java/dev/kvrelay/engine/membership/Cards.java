package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.Transport;

/** Not thread-safe: test fixtures building model cards and KV source advertisements from JSON text. */
final class Cards {
  private Cards() {}

  static DynamoEndpointId ep(String path) {
    String[] p = path.split("/");
    return new DynamoEndpointId(p[0], p[1], p[2]);
  }

  /** A base card: {@code json} is the body of the card object (without braces). */
  static ModelRecord base(String endpoint, long worker, String json) {
    return record(new ModelKey(ep(endpoint), worker, null), json);
  }

  /** A card with a model suffix (adapter key). */
  static ModelRecord adapter(String endpoint, long worker, String suffix, String json) {
    return record(new ModelKey(ep(endpoint), worker, suffix), json);
  }

  static ModelRecord record(ModelKey key, String json) {
    try {
      return ModelRecord.of(key, (JsonObject) Json.parse("{" + json + "}"));
    } catch (Exception e) {
      throw new AssertionError("bad fixture: " + json, e);
    }
  }

  /** A minimal valid base card body for {@code model}. */
  static String simple(String model) {
    return "\"display_name\":\"" + model + "\",\"kv_cache_block_size\":16";
  }

  static EventSourceRecord source(String kvEndpoint, long worker, long rank, long publisher, boolean recoverable) {
    DynamoEndpointId e = ep(kvEndpoint);
    @org.jspecify.annotations.Nullable EndpointRecord target = recoverable ? recoveryTarget(e, worker) : null;
    return new EventSourceRecord(new EventSourceKey(new EventScope.Endpoint(e), "kv-events", publisher),
        new KvEventSource(e, worker, rank, publisher, target));
  }

  static EndpointRecord recoveryTarget(DynamoEndpointId e, long worker) {
    return new EndpointRecord(new EndpointKey(e, worker), new Transport.Tcp("127.0.0.1:9000/x"), "json", null);
  }
}
