package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonValue;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: driven by one test. A fabric8 mock API server in CRUD mode (real HTTP list/watch) with
 * the {@link ApiDispatcher}, a {@link FlakyProxy} in front of it for the backend, and a separate writer
 * client through which tests change the cluster as the operator and the workers would.
 */
final class MockCluster implements AutoCloseable {
  static final String NAMESPACE = "dynamo";

  final ApiDispatcher dispatcher = new ApiDispatcher();
  final KubernetesMockServer server;
  final FlakyProxy proxy;
  final KubernetesClient writer;
  private final List<KubernetesClient> clients = new ArrayList<>();

  /** fabric8's mock web server logs every request through java.util.logging at INFO. */
  private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  MockCluster() throws Exception {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    writer = server.createClient();
    proxy = new FlakyProxy("127.0.0.1", server.getPort());
  }

  /** A new client for a backend, through the proxy, with {@link KubernetesDiscovery#clientConfig}. */
  KubernetesClient backendClient() {
    Config base = new ConfigBuilder(writer.getConfiguration())
        .withMasterUrl("http://127.0.0.1:" + proxy.port()).withNamespace(NAMESPACE)
        .withCustomHeaders(Map.of(ApiDispatcher.CLIENT_HEADER, "backend"))
        .withRequestTimeout(30_000) // the loaded CI machine: the mock's first Jackson introspection can take seconds
        .build();
    KubernetesClient c = new KubernetesClientBuilder().withConfig(KubernetesDiscovery.clientConfig(base)).build();
    clients.add(c);
    return c;
  }

  /** Options for a relay pod in {@link #NAMESPACE}. */
  static KubernetesDiscoveryOptions options(ReadinessMode mode, Duration debounce) {
    return new KubernetesDiscoveryOptions(mode, new PodIdentity("kv-dc-relay-0", "uid-relay-0", NAMESPACE, "relay"),
        debounce, Duration.ofMillis(50), Duration.ofMillis(500));
  }

  // ---------------------------------------------------------------- writes

  /** Immutable and thread-safe: one EndpointSlice endpoint (a pod behind a labelled Service). */
  record SliceEndpoint(String podName, @Nullable String podUid, boolean ready) {}

  /** Creates or replaces an EndpointSlice with the given labels (the discovery labels unless {@code labels} is given). */
  void putSlice(String name, List<SliceEndpoint> endpoints, @Nullable Map<String, String> labels) {
    List<Endpoint> eps = new ArrayList<>();
    int ip = 1;
    for (SliceEndpoint e : endpoints) {
      eps.add(new EndpointBuilder().withAddresses("10.0.0." + ip++)
          .withNewConditions().withReady(e.ready()).endConditions()
          .withNewTargetRef().withKind("Pod").withName(e.podName()).withNamespace(NAMESPACE).withUid(e.podUid())
          .endTargetRef().build());
    }
    EndpointSlice slice = new EndpointSliceBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE)
        .withLabels(labels == null ? KubernetesDiscovery.DISCOVERY_LABELS : labels).endMetadata()
        .withAddressType("IPv4").withEndpoints(eps).build();
    writer.discovery().v1().endpointSlices().inNamespace(NAMESPACE).resource(slice)
        .createOr(NonDeletingOperation::update);
  }

  /** The request that creates an EndpointSlice, for {@link ApiDispatcher#armGone}. */
  ApiDispatcher.Call createSliceCall(String name, List<SliceEndpoint> endpoints) {
    putSlice(name, endpoints, null);
    EndpointSlice slice = writer.discovery().v1().endpointSlices().inNamespace(NAMESPACE).withName(name).get();
    deleteSlice(name);
    slice.getMetadata().setResourceVersion(null);
    slice.getMetadata().setUid(null);
    return new ApiDispatcher.Call("POST", "/apis/discovery.k8s.io/v1/namespaces/" + NAMESPACE + "/endpointslices",
        "application/json", writer.getKubernetesSerialization().asJson(slice));
  }

  /** The request that creates a CR, for {@link ApiDispatcher#armGone}. */
  ApiDispatcher.Call createCrCall(String name, String ownerUid, String specDataJson) {
    putCr(name, ownerUid, specDataJson);
    GenericKubernetesResource cr = getCr(name);
    deleteCr(name);
    cr.getMetadata().setResourceVersion(null);
    cr.getMetadata().setUid(null);
    return new ApiDispatcher.Call("POST", "/apis/nvidia.com/v1alpha1/namespaces/" + NAMESPACE + "/dynamoworkermetadatas",
        "application/json", writer.getKubernetesSerialization().asJson(cr));
  }

  /** The request that deletes a CR, for {@link ApiDispatcher#armGone}. */
  static ApiDispatcher.Call deleteCrCall(String name) {
    return new ApiDispatcher.Call("DELETE",
        "/apis/nvidia.com/v1alpha1/namespaces/" + NAMESPACE + "/dynamoworkermetadatas/" + name, null, "");
  }

  void deleteSlice(String name) {
    writer.discovery().v1().endpointSlices().inNamespace(NAMESPACE).withName(name).delete();
  }

  /**
   * Creates or replaces a labelled Pod whose containers have the given readiness; returns its uid (the
   * mock assigns one on creation, as the API server does).
   */
  String putPod(String name, Map<String, Boolean> containersReady) {
    List<ContainerStatus> statuses = new ArrayList<>();
    for (Map.Entry<String, Boolean> c : containersReady.entrySet()) {
      statuses.add(new ContainerStatusBuilder().withName(c.getKey()).withReady(c.getValue()).build());
    }
    Pod pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE)
        .withLabels(KubernetesDiscovery.DISCOVERY_LABELS).endMetadata()
        .withNewStatus().withContainerStatuses(statuses).endStatus().build();
    return writer.pods().inNamespace(NAMESPACE).resource(pod).createOr(NonDeletingOperation::update)
        .getMetadata().getUid();
  }

  void deletePod(String name) {
    writer.pods().inNamespace(NAMESPACE).withName(name).delete();
  }

  /**
   * Creates or replaces a CR owned by pod uid {@code ownerUid}; {@code specDataJson} is put verbatim as
   * {@code spec.data} (null: no {@code data} field).
   */
  void putCr(String name, String ownerUid, @Nullable String specDataJson) {
    putCrWith(name, ownerUid, specDataJson, false);
  }

  private void putCrWith(String name, String ownerUid, @Nullable String specDataJson, boolean replaceOnly) {
    Map<String, Object> spec = new LinkedHashMap<>();
    if (specDataJson != null) {
      spec.put("data", writer.getKubernetesSerialization().unmarshal(specDataJson, Object.class));
    }
    GenericKubernetesResource cr = new GenericKubernetesResource();
    cr.setApiVersion(WorkerMetadataResource.API_VERSION);
    cr.setKind(WorkerMetadataResource.KIND);
    cr.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE)
        .addNewOwnerReference().withApiVersion("v1").withKind("Pod").withName(name).withUid(ownerUid)
        .withController(false).withBlockOwnerDeletion(false).endOwnerReference().build());
    cr.setAdditionalProperty("spec", spec);
    if (replaceOnly) {
      writer.genericKubernetesResources(WorkerMetadataResource.CONTEXT).inNamespace(NAMESPACE).resource(cr).update();
    } else {
      writer.genericKubernetesResources(WorkerMetadataResource.CONTEXT).inNamespace(NAMESPACE).resource(cr)
          .createOr(NonDeletingOperation::update);
    }
  }

  /** Replaces an existing CR's {@code spec.data} with one PUT (no read first). */
  void replaceCrData(String name, String ownerUid, String specDataJson) {
    putCrWith(name, ownerUid, specDataJson, true);
  }

  void deleteCr(String name) {
    writer.genericKubernetesResources(WorkerMetadataResource.CONTEXT).inNamespace(NAMESPACE).withName(name).delete();
  }

  /** The stored CR, or null. */
  @Nullable GenericKubernetesResource getCr(String name) {
    return writer.genericKubernetesResources(WorkerMetadataResource.CONTEXT).inNamespace(NAMESPACE).withName(name).get();
  }

  /** The stored CR's {@code spec.data} as JSON, or null. */
  @Nullable JsonValue specData(String name) throws Exception {
    GenericKubernetesResource cr = getCr(name);
    if (cr == null) {
      return null;
    }
    Object spec = cr.getAdditionalProperties().get("spec");
    return Json.parse(writer.getKubernetesSerialization().asJson(((Map<?, ?>) spec).get("data")));
  }

  // ---------------------------------------------------------------- waiting

  /** Polls {@code condition} every 10 ms until it holds, failing with {@code what} after {@code timeout}. */
  static void await(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  @Override
  public void close() throws Exception {
    for (KubernetesClient c : clients) {
      c.close();
    }
    writer.close();
    proxy.close();
    try {
      server.destroy();
    } catch (IllegalStateException e) {
      // the mock web server's shutdown wait can time out on a loaded machine; the port is released anyway
      System.err.println("mock API server shutdown: " + e.getMessage());
    }
  }
}
