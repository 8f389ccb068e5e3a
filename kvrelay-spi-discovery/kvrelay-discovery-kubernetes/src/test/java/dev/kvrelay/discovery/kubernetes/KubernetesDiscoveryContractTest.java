package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryBackendContract;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryWorld;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The discovery backend contract against {@link KubernetesDiscovery} on the fabric8 mock API server (CRUD
 * mode), pod mode with the §3.2 debounce. The world registers each record as a worker would: in the
 * {@code spec.data} of a CR of its own pod (one pod per record key), with the pod ready in a labelled
 * EndpointSlice; an outage cuts the backend's TCP connections to the API server.
 */
class KubernetesDiscoveryContractTest extends DiscoveryBackendContract {

  @Override
  protected DiscoveryWorld newWorld() throws Exception {
    return new KubeWorld();
  }

  /** Not thread-safe: driven by one contract test. */
  static final class KubeWorld implements DiscoveryWorld {
    final MockCluster cluster = new MockCluster();
    final KubernetesDiscovery backend = KubernetesDiscovery.start(cluster.backendClient(),
        MockCluster.options(ReadinessMode.POD, KubernetesDiscoveryOptions.DEFAULT_DEBOUNCE), true);
    private final Map<String, TreeMap<DiscoveryKey, DiscoveryRecord>> podRecords = new HashMap<>();
    private final java.util.Set<String> slicesWritten = new java.util.HashSet<>();

    KubeWorld() throws Exception {}

    private static String podFor(String storageKey) {
      return "w-" + UUID.nameUUIDFromBytes(storageKey.getBytes(StandardCharsets.UTF_8)).toString().replace("-", "");
    }

    private static String uidOf(String pod) {
      return "uid-" + pod;
    }

    private void writePod(String pod, JsonObject specData) {
      cluster.putCr(pod, uidOf(pod), Json.write(specData));
      if (slicesWritten.add(pod)) {
        cluster.putSlice("slice-" + pod, List.of(new MockCluster.SliceEndpoint(pod, uidOf(pod), true)), null);
      }
    }

    @Override
    public DiscoveryBackend backend() {
      return backend;
    }

    @Override
    public void put(DiscoveryRecord record) {
      String pod = podFor(record.key().storageKey());
      TreeMap<DiscoveryKey, DiscoveryRecord> records = podRecords.computeIfAbsent(pod, p -> new TreeMap<>(DiscoveryKey.ORDER));
      records.put(record.key(), record);
      writePod(pod, DiscoveryCodec.encodeWorkerMetadata(records.values()));
    }

    @Override
    public void remove(DiscoveryKey key) {
      String pod = podFor(key.storageKey());
      TreeMap<DiscoveryKey, DiscoveryRecord> records = podRecords.get(pod);
      if (records == null || records.remove(key) == null) {
        return;
      }
      podRecords.remove(pod);
      cluster.deleteCr(pod);
      cluster.deleteSlice("slice-" + pod);
      slicesWritten.remove(pod);
    }

    @Override
    public void updateTaints(ModelKey key, List<String> taints) throws Exception {
      TreeMap<DiscoveryKey, DiscoveryRecord> records = podRecords.get(podFor(key.storageKey()));
      if (records == null || !(records.get(key) instanceof ModelRecord)) {
        return;
      }
      ModelRecord card = (ModelRecord) records.get(key);
      JsonObject raw = card.rawCard();
      JsonObject runtime = raw.get("runtime_config") instanceof JsonObject
          ? (JsonObject) raw.get("runtime_config") : JsonObject.of();
      put(ModelRecord.of(key, raw.with("runtime_config", runtime.with("taints", JsonArray.ofStrings(taints)))));
    }

    @Override
    public void putMalformed(DiscoveryKind kind, String path, String rawValue) {
      JsonValue value;
      try {
        value = Json.parse(rawValue);
      } catch (JsonException e) {
        value = new JsonString(rawValue); // not JSON at all: stored as a string where an object belongs
      }
      Map<String, JsonValue> entry = new LinkedHashMap<>();
      entry.put(path, value);
      writePod(podFor("malformed/" + kind.bucket() + "/" + path),
          JsonObject.builder().put(kind.mapName(), new JsonObject(entry)).build());
    }

    @Override
    public boolean supportsOutage() {
      return true;
    }

    @Override
    public void beginOutage() {
      cluster.proxy.cut();
    }

    @Override
    public void endOutage() {
      cluster.proxy.restore();
    }

    @Override
    public void close() throws Exception {
      backend.close();
      cluster.close();
    }
  }

  @Override
  protected Duration timeout() {
    return Duration.ofSeconds(20);
  }
}
