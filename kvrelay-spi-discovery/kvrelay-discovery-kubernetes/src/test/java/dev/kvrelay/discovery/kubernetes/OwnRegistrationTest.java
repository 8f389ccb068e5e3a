package dev.kvrelay.discovery.kubernetes;

import static dev.kvrelay.discovery.kubernetes.Workers.byKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.RecordingListener;
import dev.kvrelay.spi.discovery.TestRecords;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code runtime-inputs §3.5}: the relay registers its own runtime endpoints by server-side apply of its own
 * CR (field manager, forced, whole {@code spec.data}, ownerReference to its pod) and deletes it on close.
 */
class OwnRegistrationTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String RELAY = "kv-dc-relay-0";
  private static final String CR_PATH = "/apis/nvidia.com/v1alpha1/namespaces/dynamo/dynamoworkermetadatas/" + RELAY;

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

  private static DiscoveryRecord relayEndpoint(String endpoint, int port) {
    return TestRecords.endpoint("relay", "kv_dc_relay", endpoint, InstanceIdHash.instanceId(RELAY),
        "10.0.0.5:" + port + "/" + endpoint);
  }

  @Test
  void appliesItsOwnCrReadsItBackAndDeletesItOnClose() throws Exception {
    backend = KubernetesDiscovery.start(cluster.backendClient(),
        MockCluster.options(ReadinessMode.POD, KubernetesDiscoveryOptions.DEFAULT_DEBOUNCE), true);
    DiscoveryRecord status = relayEndpoint("status", 5562);
    backend.register(List.of(status));

    List<ApiDispatcher.Call> applies = cluster.dispatcher.calls().stream()
        .filter(c -> c.method().equals("PATCH")).toList();
    assertThat(applies).singleElement().satisfies(c -> {
      assertThat(c.resourcePath()).isEqualTo(CR_PATH);
      assertThat(c.contentType()).startsWith("application/apply-patch+yaml");
      assertThat(c.query()).contains("fieldManager=dynamo-worker").contains("force=true");
    });
    GenericKubernetesResource stored = cluster.getCr(RELAY);
    assertThat(stored).isNotNull();
    assertThat(stored.getMetadata().getOwnerReferences()).singleElement().satisfies((OwnerReference o) -> {
      assertThat(o.getApiVersion()).isEqualTo("v1");
      assertThat(o.getKind()).isEqualTo("Pod");
      assertThat(o.getName()).isEqualTo(RELAY);
      assertThat(o.getUid()).isEqualTo("uid-relay-0");
      assertThat(o.getController()).isFalse();
      assertThat(o.getBlockOwnerDeletion()).isFalse();
    });
    assertThat(cluster.specData(RELAY)).isEqualTo(DiscoveryCodec.encodeWorkerMetadata(List.of(status)));

    // once the relay's pod is ready behind its labelled Service, discovery (its own included) sees it
    cluster.putSlice("kv-dc-relay", List.of(new MockCluster.SliceEndpoint(RELAY, "uid-relay-0", true)), null);
    RecordingListener listener = new RecordingListener();
    backend.watch(DiscoveryScope.namespaces(List.of("relay")), listener);
    listener.awaitView(WAIT, byKey(List.of(status)));

    DiscoveryRecord query = relayEndpoint("kv_query", 5563);
    backend.register(List.of(query));
    assertThat(cluster.specData(RELAY)).isEqualTo(DiscoveryCodec.encodeWorkerMetadata(List.of(status, query)));
    listener.awaitView(WAIT, byKey(List.of(status, query)));
    backend.unregister(List.of(status.key()));
    assertThat(cluster.specData(RELAY)).isEqualTo(DiscoveryCodec.encodeWorkerMetadata(List.of(query)));
    listener.awaitView(WAIT, byKey(List.of(query)));
    assertThat(backend.registered()).containsExactly(query);
    assertThat(backend.stats().registrations()).isEqualTo(3);

    backend.close();
    assertThat(cluster.getCr(RELAY)).isNull();
    assertThat(cluster.dispatcher.calls()).anySatisfy(c -> {
      assertThat(c.method()).isEqualTo("DELETE");
      assertThat(c.resourcePath()).isEqualTo(CR_PATH);
    });
    assertThatThrownBy(() -> backend.register(List.of(status))).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.CLOSED));
  }

  @Test
  void withoutAPodUidRegistrationFailsAndWritesNothing() throws Exception {
    KubernetesDiscoveryOptions noUid = new KubernetesDiscoveryOptions(ReadinessMode.POD,
        new PodIdentity(RELAY, null, MockCluster.NAMESPACE, null), Duration.ofMillis(500), Duration.ofMillis(50),
        Duration.ofMillis(500));
    backend = KubernetesDiscovery.start(cluster.backendClient(), noUid, true);
    assertThatThrownBy(() -> backend.register(List.of(relayEndpoint("status", 5562))))
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
    assertThat(cluster.dispatcher.calls()).noneSatisfy(c -> assertThat(c.method()).isEqualTo("PATCH"));
    assertThat(backend.registered()).isEmpty();
    backend.close();
    assertThat(cluster.dispatcher.calls()).noneSatisfy(c -> assertThat(c.method()).isEqualTo("DELETE"));
  }

  @Test
  void inContainerModeTheCrIsNamedByTheContainerRule() throws Exception {
    KubernetesDiscoveryOptions engine = new KubernetesDiscoveryOptions(ReadinessMode.CONTAINER,
        new PodIdentity(RELAY, "uid-relay-0", MockCluster.NAMESPACE, "engine-0"), Duration.ofMillis(500),
        Duration.ofMillis(50), Duration.ofMillis(500));
    backend = KubernetesDiscovery.start(cluster.backendClient(), engine, true);
    DiscoveryRecord status = relayEndpoint("status", 5562);
    backend.register(List.of(status));
    assertThat(cluster.getCr(RELAY + "-engine-0")).isNotNull();
    assertThat(Json.write(cluster.specData(RELAY + "-engine-0")))
        .isEqualTo(Json.write(DiscoveryCodec.encodeWorkerMetadata(List.of(status))));
    backend.close();
    assertThat(cluster.getCr(RELAY + "-engine-0")).isNull();
  }
}
