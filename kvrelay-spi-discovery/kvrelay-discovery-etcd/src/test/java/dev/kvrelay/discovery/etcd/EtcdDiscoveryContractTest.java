package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoveryBackendContract;
import dev.kvrelay.spi.discovery.DiscoveryWorld;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/** The discovery backend contract (SPI test-jar) against the etcd backend and a real Debian etcd. */
class EtcdDiscoveryContractTest extends DiscoveryBackendContract {
  private static EtcdServer etcd;

  @BeforeAll
  static void startEtcd() throws Exception {
    Assumptions.assumeTrue(EtcdServer.installed() || System.getenv("CI") != null,
        "Debian etcd-server / etcd-client not installed");
    etcd = EtcdServer.startNew();
  }

  @AfterAll
  static void stopEtcd() throws Exception {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Override
  protected DiscoveryWorld newWorld() throws Exception {
    return new EtcdWorld(etcd, Map.of());
  }
}
