package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrarContract;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The registrar contract against the relay's own DynamoWorkerMetadata CR (server-side apply on the mock API server);
 * the store is read back as the CR's {@code spec.data} through the cluster's separate writer client.
 */
class KubernetesRegistrarContractTest extends DiscoveryRegistrarContract {

  @Override
  protected RegistrarWorld newWorld() throws Exception {
    MockCluster cluster = new MockCluster();
    KubernetesDiscoveryOptions options = MockCluster.options(ReadinessMode.POD, KubernetesDiscoveryOptions.DEFAULT_DEBOUNCE);
    KubernetesDiscovery backend = KubernetesDiscovery.start(cluster.backendClient(), options, true);
    String crName = options.identity().crName(options.mode());
    return new RegistrarWorld() {
      @Override
      public DiscoveryBackend backend() {
        return backend;
      }

      @Override
      public Map<DiscoveryKey, DiscoveryRecord> stored() throws Exception {
        Map<DiscoveryKey, DiscoveryRecord> out = new LinkedHashMap<>();
        JsonValue data = cluster.specData(crName);
        if (data != null) {
          for (DiscoveryRecord r : DiscoveryCodec.decodeWorkerMetadata(data).records()) {
            out.put(r.key(), r);
          }
        }
        return out;
      }

      @Override
      public void close() throws Exception {
        backend.close();
        cluster.close();
      }
    };
  }
}
