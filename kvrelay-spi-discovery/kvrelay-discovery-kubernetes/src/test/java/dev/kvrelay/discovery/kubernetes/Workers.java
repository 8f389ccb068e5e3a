package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.TestRecords;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Stateless and thread-safe: worker fixtures as a Dynamo worker registers them ({@code runtime-inputs §3.1}). */
final class Workers {
  private Workers() {}

  /** An endpoint and a model card of the worker whose CR is {@code crName}, instance id = hash(crName). */
  static List<DiscoveryRecord> recordsOf(String crName, String address) {
    long id = InstanceIdHash.instanceId(crName);
    return List.of(
        TestRecords.endpoint("dynamo", "backend", "generate", id, address),
        TestRecords.model("dynamo", "backend", "generate", id, null, "Qwen/Qwen3-0.6B"));
  }

  /** The {@code spec.data} JSON of {@code records}. */
  static String specData(List<DiscoveryRecord> records) {
    return Json.write(DiscoveryCodec.encodeWorkerMetadata(records));
  }

  /** The records by key. */
  @SafeVarargs
  static Map<DiscoveryKey, DiscoveryRecord> byKey(List<? extends DiscoveryRecord>... groups) {
    Map<DiscoveryKey, DiscoveryRecord> out = new HashMap<>();
    for (List<? extends DiscoveryRecord> g : groups) {
      for (DiscoveryRecord r : g) {
        out.put(r.key(), r);
      }
    }
    return out;
  }
}
