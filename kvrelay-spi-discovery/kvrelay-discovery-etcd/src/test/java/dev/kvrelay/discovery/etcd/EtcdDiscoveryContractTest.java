package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoveryBackendContract;
import dev.kvrelay.spi.discovery.DiscoveryWorld;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The discovery backend contract (SPI test-jar) against the etcd backend and a real Debian etcd. */
class EtcdDiscoveryContractTest extends DiscoveryBackendContract {
  @RegisterExtension static final EtcdServerExtension ETCD = new EtcdServerExtension();

  @Override
  protected DiscoveryWorld newWorld() throws Exception {
    return new EtcdWorld(ETCD.server(), Map.of());
  }
}
