package dev.kvrelay.discovery.etcd;

import dev.kvrelay.discovery.e2e.EngineDiscoveryContract;
import dev.kvrelay.discovery.e2e.WorkerStore;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The end-to-end contract through the engine on a real Debian etcd: each worker is an etcd lease granted by {@code
 * etcdctl lease grant} (its id is the worker's instance id, {@code runtime-inputs.md} §1.1, §2.2), and every card,
 * instance and event source is written with {@code etcdctl put --lease} and removed with {@code etcdctl del} — the
 * relay's jetcd client is the only Java code on the path.
 */
class EtcdEngineE2ETest extends EngineDiscoveryContract {
  @RegisterExtension static final EtcdServerExtension ETCD = new EtcdServerExtension();

  @Override
  protected String backendName() {
    return "etcd";
  }

  @Override
  protected WorkerStore openStore() {
    return new EtcdctlStore(ETCD.server());
  }

  @Override
  protected DiscoveryBackend openBackend() throws Exception {
    return new EtcdDiscoveryProvider().open(DiscoverySettings.of(Map.of(EtcdSettings.ENDPOINTS, ETCD.server().endpoint())));
  }

  /** The latency test writes through an in-process jetcd client of its own (etcdctl would time process start-up). */
  @Override
  protected WorkerStore latencyStore() {
    return new JetcdStore(ETCD.server());
  }

  /** Not thread-safe: confined to the test thread; workers as etcd leases, written by a jetcd client of their own. */
  static final class JetcdStore implements WorkerStore {
    private final Client client;

    JetcdStore(EtcdServer etcd) {
      this.client = Client.builder().endpoints(etcd.endpoint()).build();
    }

    @Override
    public WorkerProcess spawn(String name) throws Exception {
      long lease = client.getLeaseClient().grant(300).get(10, TimeUnit.SECONDS).getID();
      return new WorkerProcess() {
        @Override
        public long instanceId() {
          return lease;
        }

        @Override
        public void put(String bucket, String path, String json) throws Exception {
          client.getKVClient().put(EtcdWatch.bytes(bucket + "/" + path), EtcdWatch.bytes(json),
              PutOption.builder().withLeaseId(lease).build()).get(10, TimeUnit.SECONDS);
        }

        @Override
        public void delete(String bucket, String path) throws Exception {
          client.getKVClient().delete(EtcdWatch.bytes(bucket + "/" + path)).get(10, TimeUnit.SECONDS);
        }
      };
    }

    @Override
    public void close() {
      client.close();
    }
  }

  /** Not thread-safe: confined to the test thread; workers as etcd leases, written through etcdctl. */
  static final class EtcdctlStore implements WorkerStore {
    private final EtcdServer etcd;
    private final List<String> leases = new ArrayList<>();

    EtcdctlStore(EtcdServer etcd) {
      this.etcd = etcd;
    }

    @Override
    public WorkerProcess spawn(String name) throws Exception {
      // "lease 694d8a3f1c2b7e01 granted with TTL(300s)"
      String[] out = etcd.etcdctl("lease", "grant", "300").split("\\s+");
      String lease = out[1];
      leases.add(lease);
      long id = Long.parseUnsignedLong(lease, 16);
      return new WorkerProcess() {
        @Override
        public long instanceId() {
          return id;
        }

        @Override
        public void put(String bucket, String path, String json) throws Exception {
          etcd.etcdctlWithInput(json, "put", "--lease=" + lease, bucket + "/" + path);
        }

        @Override
        public void delete(String bucket, String path) throws Exception {
          etcd.etcdctl("del", bucket + "/" + path);
        }
      };
    }

    /** Revokes every lease: what is left of the workers' keys vanishes with them. */
    @Override
    public void close() throws Exception {
      for (String lease : leases) {
        etcd.etcdctl("lease", "revoke", lease);
      }
    }
  }
}
