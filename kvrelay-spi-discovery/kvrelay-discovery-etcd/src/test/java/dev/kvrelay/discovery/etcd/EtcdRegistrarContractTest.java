package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrarContract;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registrar contract against the etcd backend's lease registration; the store is read back by a jetcd client of its own. */
class EtcdRegistrarContractTest extends DiscoveryRegistrarContract {
  @RegisterExtension static final EtcdServerExtension ETCD = new EtcdServerExtension();

  @Override
  protected RegistrarWorld newWorld() throws Exception {
    Client reader = Client.builder().endpoints(ETCD.server().endpoint()).build();
    reader.getKVClient().delete(EtcdWatch.bytes("v1/"), DeleteOption.builder().isPrefix(true).build())
        .get(10, TimeUnit.SECONDS);
    DiscoveryBackend backend = new EtcdDiscoveryProvider().open(
        DiscoverySettings.of(Map.of(EtcdSettings.ENDPOINTS, ETCD.server().endpoint())));
    return new RegistrarWorld() {
      @Override
      public DiscoveryBackend backend() {
        return backend;
      }

      @Override
      public Map<DiscoveryKey, DiscoveryRecord> stored() throws Exception {
        Map<DiscoveryKey, DiscoveryRecord> out = new LinkedHashMap<>();
        for (KeyValue kv : reader.getKVClient().get(EtcdWatch.bytes("v1/"), GetOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS).getKvs()) {
          DiscoveryRecord r = DiscoveryCodec.decode(kv.getValue().getBytes());
          out.put(DiscoveryKey.parseStorageKey(kv.getKey().toString(StandardCharsets.UTF_8)), r);
        }
        return out;
      }

      @Override
      public void close() {
        backend.close();
        reader.close();
      }
    };
  }
}
