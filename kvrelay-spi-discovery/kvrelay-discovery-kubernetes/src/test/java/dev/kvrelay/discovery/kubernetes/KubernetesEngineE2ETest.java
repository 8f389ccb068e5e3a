package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.discovery.e2e.EngineDiscoveryContract;
import dev.kvrelay.discovery.e2e.WorkerStore;
import dev.kvrelay.discovery.kubernetes.MockCluster.SliceEndpoint;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The end-to-end contract through the engine on fabric8's mock API server (CRUD mode, real HTTP list/watch), pod
 * mode: each worker is a pod with a ready EndpointSlice endpoint and its own DynamoWorkerMetadata CR owned by its uid,
 * written by a separate fabric8 client as the operator and the worker would ({@code runtime-inputs.md} §3.1–§3.2);
 * {@code spec.data} is typed out as text from §3.1. The debounce is 50 ms (the spec's 500 ms would dominate the
 * latency figures and the test time).
 */
class KubernetesEngineE2ETest extends EngineDiscoveryContract {
  static final Duration DEBOUNCE = Duration.ofMillis(50);
  private MockCluster cluster;

  @Override
  protected String backendName() {
    return "kubernetes (mock API server, " + DEBOUNCE.toMillis() + " ms debounce)";
  }

  @Override
  protected WorkerStore openStore() throws Exception {
    cluster = new MockCluster();
    return new CrStore(cluster);
  }

  @Override
  protected DiscoveryBackend openBackend() throws Exception {
    return KubernetesDiscovery.start(cluster.backendClient(), MockCluster.options(ReadinessMode.POD, DEBOUNCE), true);
  }

  /** Not thread-safe: confined to the test thread; one pod + CR per worker, and one EndpointSlice listing them. */
  static final class CrStore implements WorkerStore {
    private static final List<String> MAPS = List.of("endpoints", "model_cards", "event_channels", "event_sources");
    private final MockCluster cluster;
    private final List<String> pods = new ArrayList<>();

    CrStore(MockCluster cluster) {
      this.cluster = cluster;
    }

    private static String mapOf(String bucket) {
      return switch (bucket) {
        case "v1/instances" -> "endpoints";
        case "v1/mdc" -> "model_cards";
        case "v1/event_channels" -> "event_channels";
        case "v1/event_sources" -> "event_sources";
        default -> throw new IllegalArgumentException(bucket);
      };
    }

    @Override
    public WorkerProcess spawn(String pod) {
      String uid = "uid-" + pod;
      long id = InstanceIdHash.instanceId(pod);
      Map<String, Map<String, String>> data = new TreeMap<>();
      MAPS.forEach(m -> data.put(m, new TreeMap<>()));
      cluster.putCr(pod, uid, specData(data));
      pods.add(pod);
      cluster.putSlice("workers", pods.stream().map(p -> new SliceEndpoint(p, "uid-" + p, true)).toList(), null);
      return new WorkerProcess() {
        @Override
        public long instanceId() {
          return id;
        }

        @Override
        public void put(String bucket, String path, String json) {
          data.get(mapOf(bucket)).put(path, json);
          cluster.putCr(pod, uid, specData(data));
        }

        @Override
        public void delete(String bucket, String path) {
          data.get(mapOf(bucket)).remove(path);
          cluster.putCr(pod, uid, specData(data));
        }
      };
    }

    /** {@code spec.data}: the four maps keyed by path, each value the raw DiscoveryInstance JSON. */
    private static String specData(Map<String, Map<String, String>> data) {
      return data.entrySet().stream()
          .map(m -> "\"" + m.getKey() + "\":{" + m.getValue().entrySet().stream()
              .map(e -> "\"" + e.getKey() + "\":" + e.getValue()).collect(Collectors.joining(",")) + "}")
          .collect(Collectors.joining(",", "{", "}"));
    }

    @Override
    public void close() throws Exception {
      cluster.close();
    }
  }
}
