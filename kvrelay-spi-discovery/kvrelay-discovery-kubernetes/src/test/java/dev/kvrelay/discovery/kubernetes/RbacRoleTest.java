package dev.kvrelay.discovery.kubernetes;

import static dev.kvrelay.discovery.kubernetes.Workers.byKey;
import static dev.kvrelay.discovery.kubernetes.Workers.recordsOf;
import static dev.kvrelay.discovery.kubernetes.Workers.specData;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.RecordingListener;
import dev.kvrelay.spi.discovery.TestRecords;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The verbs and resources the backend's requests use, observed on the mock API server over a full life
 * (start, watch, join, register, unregister, a lost watch and relist, close), against the Role of the
 * deployment guide (copied verbatim into {@code kv-dc-relay-rbac.yaml}). Container mode additionally needs
 * Pods {@code get/list/watch}, as the guide says.
 */
class RbacRoleTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Pattern PATH = Pattern.compile(
      "^/(?:api/v1|apis/([^/]+)/[^/]+)/namespaces/[^/]+/([^/?]+)(?:/([^/?]+))?$");

  /** Immutable and thread-safe: one RBAC permission, {@code group/resource:verb}. */
  record Permission(String group, String resource, String verb) implements Comparable<Permission> {
    @Override
    public int compareTo(Permission o) {
      return toString().compareTo(o.toString());
    }

    @Override
    public String toString() {
      return (group.isEmpty() ? "core" : group) + "/" + resource + ":" + verb;
    }
  }

  static Set<Permission> granted(Role role) {
    Set<Permission> out = new TreeSet<>();
    for (PolicyRule rule : role.getRules()) {
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            out.add(new Permission(group, resource, verb));
          }
        }
      }
    }
    return out;
  }

  static Role seedRole(MockCluster cluster) throws Exception {
    try (InputStream in = RbacRoleTest.class.getResourceAsStream("/kv-dc-relay-rbac.yaml")) {
      List<HasMetadata> items = cluster.writer.load(in).items();
      return items.stream().filter(Role.class::isInstance).map(Role.class::cast).findFirst().orElseThrow();
    }
  }

  /** The permissions the backend's requests needed. */
  static Set<Permission> used(List<ApiDispatcher.Call> calls) {
    Set<Permission> out = new TreeSet<>();
    for (ApiDispatcher.Call c : calls) {
      if (!c.client().equals("backend")) {
        continue;
      }
      Matcher m = PATH.matcher(c.resourcePath());
      assertThat(m.matches()).as("a namespaced API path: %s", c.path()).isTrue();
      String group = m.group(1) == null ? "" : m.group(1);
      boolean named = m.group(3) != null;
      String verb;
      switch (c.method()) {
        case "GET":
          verb = c.query().contains("watch=true") ? "watch" : named ? "get" : "list";
          break;
        case "POST":
          verb = "create";
          break;
        case "PUT":
          verb = "update";
          break;
        case "PATCH":
          verb = "patch";
          break;
        case "DELETE":
          verb = named ? "delete" : "deletecollection";
          break;
        default:
          throw new AssertionError("unexpected method " + c.method());
      }
      out.add(new Permission(group, m.group(2), verb));
    }
    return out;
  }

  private static Set<Permission> lifecycle(MockCluster cluster, ReadinessMode mode) throws Exception {
    List<DiscoveryRecord> w0 = recordsOf("worker-0", "10.0.0.1:9999/generate");
    if (mode == ReadinessMode.POD) {
      cluster.putCr("worker-0", "uid-worker-0", specData(w0));
      cluster.putSlice("slice-worker-0", List.of(new MockCluster.SliceEndpoint("worker-0", "uid-worker-0", true)), null);
    } else {
      cluster.putCr("worker-0", cluster.putPod("worker-0", Map.of("main", true)), specData(w0));
    }
    KubernetesDiscovery backend = KubernetesDiscovery.start(cluster.backendClient(),
        new KubernetesDiscoveryOptions(mode, new PodIdentity("kv-dc-relay-0", "uid-relay-0", MockCluster.NAMESPACE,
            "main"), Duration.ofMillis(500), Duration.ofMillis(50), Duration.ofMillis(500)), true);
    RecordingListener listener = new RecordingListener();
    backend.watch(DiscoveryScope.watchAll(), listener);
    listener.awaitView(WAIT, byKey(w0));
    DiscoveryRecord own = TestRecords.endpoint("relay", "kv_dc_relay", "status", 1, "10.0.0.5:5562/status");
    backend.register(List.of(own));
    backend.unregister(List.of(own.key()));
    long relists = backend.stats().relists();
    // Both watches (the CRs and the slices or pods) must be open before their connections are dropped: a watch
    // request still on its way when the proxy drops the connections is not lost, and no relist follows.
    MockCluster.await(WAIT, "both watches open", () -> cluster.dispatcher.calls().stream()
        .filter(c -> c.client().equals("backend") && c.method().equals("GET") && c.query().contains("watch=true"))
        .map(ApiDispatcher.Call::resourcePath).distinct().count() >= 2);
    cluster.proxy.dropConnections();
    // The deadline only bounds a failing run: fabric8's mock server closes a dropped watch on its single event loop
    // and waits there for an executor before it serves the reconnect (17.8 s seen on a loaded machine, PodModeTest).
    MockCluster.await(Duration.ofSeconds(90), "a relist after the lost watch",
        () -> backend.stats().relists() > relists);
    listener.awaitView(WAIT, byKey(w0));
    backend.close();
    return used(cluster.dispatcher.calls());
  }

  @Test
  void podModeNeedsNoMoreThanTheSeedRole() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      Set<Permission> granted = granted(seedRole(cluster));
      Set<Permission> used = lifecycle(cluster, ReadinessMode.POD);
      assertThat(granted).containsAll(used);
      assertThat(used).containsExactlyInAnyOrder(
          new Permission("discovery.k8s.io", "endpointslices", "list"),
          new Permission("discovery.k8s.io", "endpointslices", "watch"),
          new Permission("nvidia.com", "dynamoworkermetadatas", "list"),
          new Permission("nvidia.com", "dynamoworkermetadatas", "watch"),
          new Permission("nvidia.com", "dynamoworkermetadatas", "patch"),
          new Permission("nvidia.com", "dynamoworkermetadatas", "delete"));
      System.out.println("RBAC pod mode: used " + used + "; granted but unused " + minus(granted, used));
    }
  }

  @Test
  void containerModeNeedsTheSeedRolePlusPodReads() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      Set<Permission> granted = new TreeSet<>(granted(seedRole(cluster)));
      Set<Permission> used = lifecycle(cluster, ReadinessMode.CONTAINER);
      assertThat(granted).doesNotContainAnyElementsOf(Set.of(new Permission("", "pods", "list")));
      assertThat(used).contains(new Permission("", "pods", "list"), new Permission("", "pods", "watch"));
      granted.add(new Permission("", "pods", "get"));
      granted.add(new Permission("", "pods", "list"));
      granted.add(new Permission("", "pods", "watch"));
      assertThat(granted).containsAll(used);
      assertThat(used).noneMatch(p -> p.resource().equals("endpointslices"));
    }
  }

  private static Set<Permission> minus(Set<Permission> a, Set<Permission> b) {
    Set<Permission> out = new TreeSet<>(a);
    out.removeAll(b);
    return out;
  }
}
