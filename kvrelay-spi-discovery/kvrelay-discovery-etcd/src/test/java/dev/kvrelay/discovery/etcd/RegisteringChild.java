package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoverySettings;
import dev.kvrelay.spi.discovery.TestRecords;
import dev.kvrelay.spi.discovery.EndpointRecord;
import java.util.Map;

/**
 * Not thread-safe: a child-process main. A stand-in relay process for the crash test: opens the etcd
 * backend (args: endpoint, lease TTL seconds), registers its own endpoint under the primary lease, prints
 * {@code REGISTERED <key>} and waits to be killed.
 */
public final class RegisteringChild {
  private RegisteringChild() {}

  public static void main(String[] args) throws Exception {
    EtcdDiscovery backend = (EtcdDiscovery) new EtcdDiscoveryProvider().open(DiscoverySettings.of(Map.of(
        EtcdSettings.ENDPOINTS, args[0], EtcdSettings.LEASE_TTL, args[1])));
    EndpointRecord own = TestRecords.endpoint("relay", "kv_dc_relay", "control", backend.instanceId(),
        "127.0.0.1:5561/control");
    backend.register(own);
    System.out.println("REGISTERED " + own.key().storageKey());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
