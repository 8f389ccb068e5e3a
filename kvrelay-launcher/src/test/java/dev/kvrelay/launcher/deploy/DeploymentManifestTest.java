package dev.kvrelay.launcher.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.BindAddress;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.launcher.cli.CommandLineOutcome;
import dev.kvrelay.launcher.cli.RelayCommandLine;
import dev.kvrelay.launcher.cli.RelaySettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Kubernetes manifests in {@code deploy/kubernetes/} and the launcher agree: the relay container's arguments
 * parse with the launcher's own {@link RelayCommandLine} over the manifest's environment; every variable is one the
 * launcher or its plugins read; the bind port, container ports, Service ports, probe ports and {@code
 * DYN_SYSTEM_PORT} line up; the probes ask for {@code dynamo.kvrelay.v1.KvEventRelay}; RBAC is the seed's
 * (plugins-wire §5); and the mTLS variant's nginx.conf, kustomization and volumes fit its manifest. YAML is read with
 * SnakeYAML's safe constructor.
 */
class DeploymentManifestTest {
  static final String PROBE_SERVICE = "dynamo.kvrelay.v1.KvEventRelay";
  static final Path DEPLOY = repositoryRoot().resolve("deploy/kubernetes");

  /**
   * The environment the stock relay and its plugins read (producer.md §7.1–§7.5, §8; plugins-wire §4–§5; the seed's
   * configuration reference and deployment guide): the engine's {@code DYN_RELAY_*} knobs come from
   * {@link RelayConfigKey} itself, the rest are the runtime's.
   */
  static Set<String> launcherEnvironment() {
    Set<String> names = new TreeSet<>(List.of("DYN_DC_ID", "DYN_RELAY_CONNECTION_REVISION",
        "DYN_NAMESPACE", "DYN_DISCOVERY_BACKEND", "DYN_KUBE_DISCOVERY_MODE", "DYN_REQUEST_PLANE", "DYN_EVENT_PLANE",
        "NATS_SERVER", "DYN_TCP_RESPONSE_STREAM_HOST", "DYN_TCP_RESPONSE_STREAM_PORT", "DYN_EVENT_PLANE_HOST",
        "DYN_SYSTEM_PORT", "DYN_SYSTEM_HOST", "DYN_SYSTEM_HEALTH_PATH", "DYN_SYSTEM_LIVE_PATH",
        "ETCD_ENDPOINTS", "POD_NAME", "POD_NAMESPACE", "POD_UID"));
    for (RelayConfigKey k : RelayConfigKey.values()) {
      if (k.envName() != null) {
        names.add(k.envName());
      }
    }
    return names;
  }

  /** A manifest variant: its file, what its relay binds, and its event plane. */
  record Variant(String file, boolean loopback, String eventPlane) {
    @Override
    public String toString() {
      return file;
    }
  }

  static Stream<Variant> variants() {
    return Stream.of(new Variant("kv-dc-relay.yaml", false, "nats"),
        new Variant("kv-dc-relay-zmq.yaml", false, "zmq"),
        new Variant("mtls-sidecar/kv-dc-relay-mtls.yaml", true, "nats"));
  }

  static Path repositoryRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("deploy/kubernetes")) && Files.isRegularFile(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no deploy/kubernetes above " + Path.of("").toAbsolutePath());
  }

  /** The manifest's documents by kind (one of each). */
  static Map<String, Map<String, Object>> load(String file) throws IOException {
    Map<String, Map<String, Object>> byKind = new LinkedHashMap<>();
    try (Reader r = Files.newBufferedReader(DEPLOY.resolve(file), StandardCharsets.UTF_8)) {
      for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(r)) {
        Map<String, Object> m = map(doc);
        String kind = (String) m.get("kind");
        assertThat(byKind.put(kind, m)).as("%s: one %s", file, kind).isNull();
      }
    }
    return byKind;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    assertThat(o).isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o) {
    assertThat(o).isInstanceOf(List.class);
    return (List<Object>) o;
  }

  static Object at(Object root, String... path) {
    Object o = root;
    for (String p : path) {
      o = map(o).get(p);
      assertThat(o).as("field %s", String.join(".", path)).isNotNull();
    }
    return o;
  }

  static Map<String, Object> container(Map<String, Object> deployment, String name) {
    for (Object c : list(at(deployment, "spec", "template", "spec", "containers"))) {
      if (name.equals(map(c).get("name"))) {
        return map(c);
      }
    }
    throw new AssertionError("no container " + name);
  }

  /** The container's ports by name. */
  static Map<String, Integer> ports(Map<String, Object> container) {
    Map<String, Integer> ports = new LinkedHashMap<>();
    Object declared = container.get("ports");
    if (declared != null) {
      for (Object p : list(declared)) {
        ports.put((String) map(p).get("name"), (Integer) map(p).get("containerPort"));
      }
    }
    return ports;
  }

  /** The relay's environment as the process would see it (Downward API fields get plausible values). */
  static Map<String, String> environment(Map<String, Object> relay) {
    Map<String, String> env = new LinkedHashMap<>();
    for (Object e : list(relay.get("env"))) {
      Map<String, Object> m = map(e);
      String name = (String) m.get("name");
      String value;
      if (m.containsKey("value")) {
        assertThat(m.get("value")).as("%s is a YAML string (quoted)", name).isInstanceOf(String.class);
        value = (String) m.get("value");
      } else {
        String field = (String) at(m, "valueFrom", "fieldRef", "fieldPath");
        value = switch (field) {
          case "metadata.name" -> "kv-dc-relay-7d9f8c6b5-x2x7q";
          case "metadata.namespace" -> "dynamo";
          case "metadata.uid" -> "0d6f1c3e-6a4b-4f3e-9d38-3c1f0a7e9b21";
          case "status.podIP" -> "10.1.2.3";
          default -> throw new AssertionError(name + " from unexpected field " + field);
        };
      }
      assertThat(env.put(name, value)).as("%s set once", name).isNull();
    }
    return env;
  }

  static RelaySettings parse(Map<String, Object> relay, Map<String, String> env) {
    List<String> args = new ArrayList<>();
    for (Object a : list(relay.get("args"))) {
      assertThat(a).isInstanceOf(String.class);
      args.add((String) a);
    }
    CommandLineOutcome outcome = RelayCommandLine.parse(args.toArray(String[]::new), env);
    assertThat(outcome).as("the launcher accepts %s over the manifest's env", args)
        .isInstanceOf(CommandLineOutcome.Serve.class);
    return ((CommandLineOutcome.Serve) outcome).settings();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void theRelayContainersArgumentsAndEnvironmentAreTheLaunchersOwn(Variant v) throws IOException {
    Map<String, Object> deployment = load(v.file()).get("Deployment");
    Map<String, Object> relay = container(deployment, "relay");
    assertThat(relay).as("the image's entrypoint (Jib mainClass) runs the launcher").doesNotContainKey("command");
    Map<String, String> env = environment(relay);
    assertThat(launcherEnvironment()).as("every variable is one the launcher reads").containsAll(env.keySet());
    RelaySettings settings = parse(relay, env);
    assertThat(settings.engine().dcName()).isEqualTo("dc-a");
    assertThat(settings.engine().scope().isWatchAll()).isTrue();
    assertThat(settings.fileMode()).isFalse();
    BindAddress bind = settings.engine().bind().orElseThrow();
    assertThat(bind.port()).isEqualTo(5561);
    assertThat(bind.address().isLoopbackAddress()).as("loopback bind").isEqualTo(v.loopback());
    assertThat(bind.address().isAnyLocalAddress()).as("wildcard bind").isEqualTo(!v.loopback());

    // the seed's runtime environment (plugins-wire §5), and only the chosen plane's settings
    assertThat(env).containsEntry("DYN_NAMESPACE", "relay").containsEntry("DYN_DISCOVERY_BACKEND", "kubernetes")
        .containsEntry("DYN_KUBE_DISCOVERY_MODE", "pod").containsEntry("DYN_REQUEST_PLANE", "tcp")
        .containsEntry("DYN_EVENT_PLANE", v.eventPlane()).containsEntry("DYN_SYSTEM_PORT", "8081")
        .containsKeys("POD_NAME", "POD_NAMESPACE", "POD_UID");
    if (v.eventPlane().equals("nats")) {
      assertThat(env.get("NATS_SERVER")).startsWith("nats://");
      assertThat(env).doesNotContainKeys("DYN_TCP_RESPONSE_STREAM_HOST", "DYN_TCP_RESPONSE_STREAM_PORT");
    } else {
      assertThat(env).doesNotContainKey("NATS_SERVER")
          .containsEntry("DYN_TCP_RESPONSE_STREAM_HOST", "10.1.2.3");
      assertThat(Integer.parseInt(env.get("DYN_TCP_RESPONSE_STREAM_PORT")))
          .isEqualTo(ports(relay).get("responses"));
    }
    // the WAN-tuning knobs need --bind; none may sneak in without one (there is one here, but keep the manifest lean)
    assertThat(env.keySet()).noneMatch(n -> n.startsWith("DYN_RELAY_"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void portsProbesAndServiceLineUp(Variant v) throws IOException {
    Map<String, Map<String, Object>> docs = load(v.file());
    Map<String, Object> deployment = docs.get("Deployment");
    Map<String, Object> relay = container(deployment, "relay");
    Map<String, String> env = environment(relay);
    int bindPort = parse(relay, env).engine().bind().orElseThrow().port();
    Map<String, Integer> relayPorts = ports(relay);
    assertThat(relayPorts.get("system")).isEqualTo(Integer.parseInt(env.get("DYN_SYSTEM_PORT")));

    Map<String, Integer> podPorts = new HashMap<>();
    for (Object c : list(at(deployment, "spec", "template", "spec", "containers"))) {
      ports(map(c)).forEach((name, port) -> assertThat(podPorts.put(name, port)).as("port name %s", name).isNull());
    }
    int probePort;
    String servicePortName;
    if (v.loopback()) {
      assertThat(relayPorts.values()).as("a loopback listener is no container port").doesNotContain(bindPort);
      Map<String, Integer> proxy = ports(container(deployment, "mtls-proxy"));
      Nginx conf = Nginx.read(DEPLOY.resolve("mtls-sidecar/nginx.conf"));
      assertThat(conf.upstreamPorts()).as("nginx forwards to the relay's bind port").containsOnly(bindPort);
      assertThat(conf.upstreamHosts()).containsOnly("127.0.0.1");
      assertThat(proxy.get("grpc-tls")).isEqualTo(conf.tlsPort());
      assertThat(proxy.get("probe")).isEqualTo(conf.plainPort());
      probePort = conf.plainPort();
      servicePortName = "grpc-tls";
    } else {
      assertThat(relayPorts.get("grpc")).isEqualTo(bindPort);
      probePort = bindPort;
      servicePortName = "grpc";
    }
    for (String probe : List.of("startupProbe", "readinessProbe")) {
      assertThat(at(relay, probe, "grpc", "port")).as(probe).isEqualTo(probePort);
      assertThat(at(relay, probe, "grpc", "service")).as(probe).isEqualTo(PROBE_SERVICE);
    }
    assertThat(at(relay, "startupProbe", "periodSeconds")).isEqualTo(5);
    assertThat(at(relay, "startupProbe", "failureThreshold")).isEqualTo(60);
    assertThat(at(relay, "readinessProbe", "periodSeconds")).isEqualTo(10);

    Map<String, Object> service = docs.get("Service");
    assertThat(at(service, "spec", "type")).isEqualTo("ClusterIP");
    List<Object> servicePorts = list(at(service, "spec", "ports"));
    assertThat(servicePorts).as("one WAN port, no system, probe or response port").hasSize(1);
    Map<String, Object> sp = map(servicePorts.get(0));
    assertThat(sp.get("name")).isEqualTo(servicePortName);
    assertThat(sp.get("targetPort")).isEqualTo(servicePortName);
    assertThat(sp.get("port")).isEqualTo(podPorts.get(servicePortName));
    assertThat(at(service, "spec", "selector")).isEqualTo(at(deployment, "spec", "selector", "matchLabels"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void rbacAndDeploymentShapeAreTheSeeds(Variant v) throws IOException {
    Map<String, Map<String, Object>> docs = load(v.file());
    assertThat(docs.keySet()).containsExactly("ServiceAccount", "Role", "RoleBinding", "Deployment", "Service");
    for (Map<String, Object> d : docs.values()) {
      assertThat(at(d, "metadata", "name")).isEqualTo("kv-dc-relay");
    }
    assertThat(at(docs.get("Role"), "rules")).isEqualTo(List.of(
        Map.of("apiGroups", List.of("nvidia.com"), "resources", List.of("dynamoworkermetadatas"),
            "verbs", List.of("get", "list", "watch", "create", "patch", "delete")),
        Map.of("apiGroups", List.of("discovery.k8s.io"), "resources", List.of("endpointslices"),
            "verbs", List.of("get", "list", "watch"))));
    Map<String, Object> binding = docs.get("RoleBinding");
    assertThat(at(binding, "subjects")).isEqualTo(
        List.of(Map.of("kind", "ServiceAccount", "name", "kv-dc-relay", "namespace", "dynamo")));
    assertThat(at(binding, "roleRef")).isEqualTo(
        Map.of("apiGroup", "rbac.authorization.k8s.io", "kind", "Role", "name", "kv-dc-relay"));

    Map<String, Object> deployment = docs.get("Deployment");
    assertThat(at(deployment, "spec", "replicas")).isEqualTo(1);
    assertThat(at(deployment, "spec", "strategy", "type")).isEqualTo("Recreate");
    assertThat(at(deployment, "spec", "template", "spec", "serviceAccountName")).isEqualTo("kv-dc-relay");
    assertThat(at(deployment, "spec", "template", "spec", "terminationGracePeriodSeconds")).isEqualTo(60);
    Map<String, Object> labels = map(at(deployment, "spec", "template", "metadata", "labels"));
    assertThat(labels).containsEntry("nvidia.com/dynamo-discovery-backend", "kubernetes")
        .containsEntry("nvidia.com/dynamo-discovery-enabled", "true")
        .containsAllEntriesOf(map(at(deployment, "spec", "selector", "matchLabels")));
    assertThat(map(at(docs.get("Service"), "metadata", "labels")))
        .containsEntry("nvidia.com/dynamo-discovery-backend", "kubernetes")
        .containsEntry("nvidia.com/dynamo-discovery-enabled", "true");
    Map<String, Object> relay = container(deployment, "relay");
    assertThat(at(relay, "resources")).isEqualTo(Map.of("requests", Map.of("cpu", "1", "memory", "1Gi"),
        "limits", Map.of("memory", "4Gi")));
  }

  @Test
  void theMtlsVariantsKustomizationVolumesAndNginxConfFitTogether() throws IOException {
    Map<String, Object> kustomization;
    try (Reader r = Files.newBufferedReader(DEPLOY.resolve("mtls-sidecar/kustomization.yaml"))) {
      kustomization = map(new Yaml(new SafeConstructor(new LoaderOptions())).load(r));
    }
    assertThat(kustomization.get("resources")).isEqualTo(List.of("kv-dc-relay-mtls.yaml"));
    assertThat(kustomization.get("configMapGenerator")).isEqualTo(
        List.of(Map.of("name", "kv-dc-relay-nginx", "files", List.of("nginx.conf"))));

    Map<String, Object> deployment = load("mtls-sidecar/kv-dc-relay-mtls.yaml").get("Deployment");
    Map<String, String> volumeSources = new HashMap<>();
    for (Object vol : list(at(deployment, "spec", "template", "spec", "volumes"))) {
      Map<String, Object> m = map(vol);
      String source = m.containsKey("configMap") ? "configMap:" + at(m, "configMap", "name")
          : "secret:" + at(m, "secret", "secretName");
      volumeSources.put((String) m.get("name"), source);
    }
    Map<String, String> mounts = new HashMap<>(); // mountPath -> volume source
    for (Object mount : list(container(deployment, "mtls-proxy").get("volumeMounts"))) {
      Map<String, Object> m = map(mount);
      assertThat(m.get("readOnly")).isEqualTo(true);
      mounts.put((String) m.get("mountPath"), volumeSources.get((String) m.get("name")));
    }
    assertThat(mounts).containsEntry("/etc/nginx/nginx.conf", "configMap:kv-dc-relay-nginx");
    Nginx conf = Nginx.read(DEPLOY.resolve("mtls-sidecar/nginx.conf"));
    assertThat(conf.files()).as("nginx reads its certificate, key and client CA from mounted Secrets")
        .hasSize(3).allSatisfy(file -> {
          Path parent = Path.of(file).getParent();
          assertThat(mounts.get(parent.toString())).as(file).startsWith("secret:");
        });
    assertThat(conf.text()).contains("ssl_verify_client on;", "grpc_next_upstream off;");
  }

  @Test
  void theJibImageRunsTheLaunchersMainAndExposesTheManifestsPorts() throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document pom = f.newDocumentBuilder().parse(repositoryRoot().resolve("kvrelay-launcher/pom.xml").toFile());
    Element jib = null;
    NodeList plugins = pom.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element p = (Element) plugins.item(i);
      if ("jib-maven-plugin".equals(text(p, "artifactId"))) {
        jib = p;
      }
    }
    assertThat(jib).as("a jib-maven-plugin in kvrelay-launcher/pom.xml").isNotNull();
    assertThat(text(jib, "version")).isEqualTo("3.5.2");
    assertThat(jib.getElementsByTagName("executions").getLength()).as("not bound to a phase").isZero();
    String mainClass = text(jib, "mainClass");
    assertThat(mainClass).isEqualTo("dev.kvrelay.launcher.Main");
    assertThat(Class.forName(mainClass).getMethod("main", String[].class)).isNotNull();
    Set<Integer> exposed = new LinkedHashSet<>();
    NodeList ports = jib.getElementsByTagName("port");
    for (int i = 0; i < ports.getLength(); i++) {
      exposed.add(Integer.parseInt(ports.item(i).getTextContent().trim()));
    }
    Map<String, Object> relay = container(load("kv-dc-relay.yaml").get("Deployment"), "relay");
    assertThat(exposed).containsExactlyInAnyOrderElementsOf(ports(relay).values());
  }

  private static String text(Element e, String tag) {
    NodeList l = e.getElementsByTagName(tag);
    assertThat(l.getLength()).as("<%s>", tag).isPositive();
    return l.item(0).getTextContent().trim();
  }

  /** The facts of the sidecar's nginx.conf the manifest must match. */
  record Nginx(String text, int tlsPort, int plainPort, Set<Integer> upstreamPorts, Set<String> upstreamHosts,
      List<String> files) {
    private static final Pattern TLS_LISTEN = Pattern.compile("(?m)^\\s*listen (\\d+) ssl http2;");
    private static final Pattern PLAIN_LISTEN = Pattern.compile("(?m)^\\s*listen (\\d+) http2;");
    private static final Pattern UPSTREAM = Pattern.compile("grpc_pass grpc://([0-9.]+):(\\d+);");
    private static final Pattern FILES =
        Pattern.compile("(?m)^\\s*(?:ssl_certificate|ssl_certificate_key|ssl_client_certificate) (\\S+);");

    static Nginx read(Path file) throws IOException {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      Set<Integer> ports = new LinkedHashSet<>();
      Set<String> hosts = new LinkedHashSet<>();
      Matcher m = UPSTREAM.matcher(text);
      while (m.find()) {
        hosts.add(m.group(1));
        ports.add(Integer.parseInt(m.group(2)));
      }
      List<String> files = new ArrayList<>();
      Matcher fm = FILES.matcher(text);
      while (fm.find()) {
        files.add(fm.group(1));
      }
      return new Nginx(text, single(TLS_LISTEN, text), single(PLAIN_LISTEN, text), ports, hosts, files);
    }

    private static int single(Pattern p, String text) {
      Matcher m = p.matcher(text);
      assertThat(m.find()).as("nginx.conf has %s", p).isTrue();
      int port = Integer.parseInt(m.group(1));
      assertThat(m.find()).as("nginx.conf has one %s", p).isFalse();
      return port;
    }
  }
}
