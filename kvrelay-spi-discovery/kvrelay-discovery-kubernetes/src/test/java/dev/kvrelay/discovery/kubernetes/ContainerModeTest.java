package dev.kvrelay.discovery.kubernetes;

import static dev.kvrelay.discovery.kubernetes.Workers.byKey;
import static dev.kvrelay.discovery.kubernetes.Workers.recordsOf;
import static dev.kvrelay.discovery.kubernetes.Workers.specData;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.RecordingListener;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Container mode ({@code runtime-inputs §3.3}): readiness from the container statuses of labelled Pods, one
 * CR per ready container named by the {@code cr_name} rule, owned by the pod.
 */
class ContainerModeTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private MockCluster cluster;
  private KubernetesDiscovery backend;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
  }

  @AfterEach
  void stop() throws Exception {
    if (backend != null) {
      backend.close();
    }
    cluster.close();
  }

  private static Map<String, Boolean> containers(Object... nameReady) {
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (int i = 0; i < nameReady.length; i += 2) {
      out.put((String) nameReady[i], (Boolean) nameReady[i + 1]);
    }
    return out;
  }

  @Test
  void readyContainersJoinTheirCrsByTheCrNameRule() throws Exception {
    List<DiscoveryRecord> main = recordsOf("worker-0", "10.0.0.1:9999/generate");
    List<DiscoveryRecord> engine = recordsOf("worker-0-engine-0", "10.0.0.1:9998/generate");
    List<DiscoveryRecord> sidecar = recordsOf("worker-0-sidecar", "10.0.0.1:9997/generate");
    String uid = cluster.putPod("worker-0", containers("main", true, "engine-0", true, "sidecar", false));
    cluster.putCr("worker-0", uid, specData(main));
    cluster.putCr("worker-0-engine-0", uid, specData(engine));
    cluster.putCr("worker-0-sidecar", uid, specData(sidecar));
    // an EndpointSlice is ignored in container mode
    List<DiscoveryRecord> other = recordsOf("worker-1", "10.0.0.2:9999/generate");
    cluster.putCr("worker-1", "uid-worker-1", specData(other));
    cluster.putSlice("slice-worker-1", List.of(new MockCluster.SliceEndpoint("worker-1", "uid-worker-1", true)), null);

    backend = KubernetesDiscovery.start(cluster.backendClient(),
        MockCluster.options(ReadinessMode.CONTAINER, KubernetesDiscoveryOptions.DEFAULT_DEBOUNCE), true);
    RecordingListener listener = new RecordingListener();
    backend.watch(DiscoveryScope.watchAll(), listener);
    listener.awaitView(WAIT, byKey(main, engine));
    assertThat(InstanceIdHash.instanceId("worker-0-engine-0")).isEqualTo(8051026481054291L); // vectors §8
    assertThat(backend.stats().hashMismatches()).isZero();

    assertThat(cluster.putPod("worker-0", containers("main", true, "engine-0", false, "sidecar", true))).isEqualTo(uid);
    listener.awaitView(WAIT, byKey(main, sidecar));
    assertThat(listener.payloads("removed")).containsExactlyInAnyOrderElementsOf(byKey(engine).keySet());

    // a pod re-created under the same name (new uid) does not inherit the old pod's CRs
    cluster.deletePod("worker-0");
    assertThat(cluster.putPod("worker-0", containers("main", true, "engine-0", true, "sidecar", true))).isNotEqualTo(uid);
    listener.awaitView(WAIT, Map.of());
    MockCluster.await(WAIT, "three owner mismatches", () -> backend.stats().ownerUidMismatches() == 3);

    assertThat(cluster.dispatcher.calls()).noneSatisfy(c -> {
      assertThat(c.client()).isEqualTo("backend");
      assertThat(c.resourcePath()).contains("endpointslices");
    });
    listener.assertContractKept();
  }
}
