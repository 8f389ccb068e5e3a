package dev.kvrelay.launcher.cli;

import static dev.kvrelay.launcher.cli.CliFixtures.env;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.discovery.etcd.EtcdSettings;
import dev.kvrelay.discovery.file.FileDiscoveryProvider;
import dev.kvrelay.discovery.kubernetes.KubernetesDiscoveryOptions;
import dev.kvrelay.discovery.kubernetes.PodIdentity;
import dev.kvrelay.discovery.kubernetes.ReadinessMode;
import dev.kvrelay.eventplane.nats.NatsAuth;
import dev.kvrelay.eventplane.nats.NatsSettings;
import dev.kvrelay.eventplane.zmq.ZmqSettings;
import dev.kvrelay.requestplane.tcp.TcpRequestPlaneConfig;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Environment variable → plugin setting (runtime-inputs.md §9, plugins-wire.md §5–§6): each variable is set to a
 * value other than the plugin's default and read back through the plugin's own settings parser from what
 * {@link RuntimeEnvironment} hands that plugin, so a variable that does not reach its plugin fails here. The
 * table in {@code kvrelay-launcher/README.md} lists each variable with its test.
 */
class RuntimeEnvironmentTest {
  @TempDir Path noPodinfo;

  private static DiscoverySettings discovery(Map<String, String> env) {
    return DiscoverySettings.of(RuntimeEnvironment.from(env).discoverySettings());
  }

  private static EventPlaneSettings events(Map<String, String> env) {
    return new EventPlaneSettings(RuntimeEnvironment.from(env).eventPlaneSettings());
  }

  private static Map<String, String> requests(Map<String, String> env) {
    return RuntimeEnvironment.from(env).requestPlaneSettings();
  }

  @Test
  void defaultsAreUpstreams() {
    RuntimeEnvironment rt = RuntimeEnvironment.from(Map.of());
    assertThat(rt.namespace()).isEqualTo("dynamo");
    assertThat(rt.discoveryBackend()).isEqualTo("etcd");
    assertThat(rt.eventPlane()).isEqualTo("zmq");
    assertThat(rt.requestPlane()).isEqualTo("tcp");
    assertThat(rt.eventPlaneFallback()).isNull();
  }

  @Test
  void dynNamespace() {
    assertThat(RuntimeEnvironment.from(env("DYN_NAMESPACE", "relay")).namespace()).isEqualTo("relay");
    assertThat(RuntimeEnvironment.from(env("DYN_NAMESPACE", "  ")).namespace()).isEqualTo("dynamo");
  }

  @Test
  void dynDiscoveryBackendIsTrimmedAndLowercased() {
    assertThat(RuntimeEnvironment.from(env("DYN_DISCOVERY_BACKEND", " Kubernetes ")).discoveryBackend())
        .isEqualTo("kubernetes");
    assertThat(RuntimeEnvironment.from(env("DYN_DISCOVERY_BACKEND", "file")).discoveryBackend()).isEqualTo("file");
    assertThat(RuntimeEnvironment.from(env("DYN_DISCOVERY_BACKEND", "mem")).discoveryBackend()).isEqualTo("mem");
    assertThat(RuntimeEnvironment.from(env("DYN_DISCOVERY_BACKEND", "")).discoveryBackend()).isEqualTo("etcd");
    assertThat(RuntimeEnvironment.from(env("DYN_DISCOVERY_BACKEND", "consul")).discoveryBackend())
        .as("an unknown backend is kept for the registry to refuse").isEqualTo("consul");
  }

  @Test
  void dynKubeDiscoveryModeReachesTheKubernetesPlugin() throws Exception {
    assertThat(KubernetesDiscoveryOptions.fromSettings(discovery(env("DYN_KUBE_DISCOVERY_MODE", "container")),
        noPodinfo).mode()).isEqualTo(ReadinessMode.CONTAINER);
    assertThat(KubernetesDiscoveryOptions.fromSettings(discovery(env()), noPodinfo).mode())
        .isEqualTo(ReadinessMode.POD);
  }

  @Test
  void podVariablesReachTheKubernetesPlugin() throws Exception {
    PodIdentity id = PodIdentity.resolve(discovery(env("POD_NAME", "kv-dc-relay-0", "POD_UID", "uid-1",
        "POD_NAMESPACE", "prod", "CONTAINER_NAME", "relay")), noPodinfo);
    assertThat(id).isEqualTo(new PodIdentity("kv-dc-relay-0", "uid-1", "prod", "relay"));
  }

  @Test
  void etcdVariablesReachTheEtcdPlugin() throws Exception {
    EtcdSettings etcd = EtcdSettings.from(discovery(env("ETCD_ENDPOINTS", "http://10.0.0.1:2379,http://10.0.0.2:2379",
        "ETCD_LEASE_TTL", "25", "ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS", "7", "ETCD_AUTH_USERNAME", "relay",
        "ETCD_AUTH_PASSWORD", "s3cret")));
    assertThat(etcd.endpoints()).containsExactly(URI.create("http://10.0.0.1:2379"), URI.create("http://10.0.0.2:2379"));
    assertThat(etcd.leaseTtl()).isEqualTo(Duration.ofSeconds(25));
    assertThat(etcd.startupConnectTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(etcd.username()).isEqualTo("relay");
    assertThat(etcd.password()).isEqualTo("s3cret");
  }

  @Test
  void dynFileKvAndTmpdirReachTheFilePlugin() throws Exception {
    assertThat(FileDiscoveryProvider.root(discovery(env("DYN_FILE_KV", "/srv/dynamo-kv"))))
        .isEqualTo(Path.of("/srv/dynamo-kv"));
    assertThat(FileDiscoveryProvider.root(discovery(env("TMPDIR", "/var/tmp"))))
        .isEqualTo(Path.of("/var/tmp", "dynamo_store_kv"));
  }

  @Test
  void dynEventPlaneSelectsThePlaneAndAnUnknownValueFallsBackToZmq() {
    assertThat(RuntimeEnvironment.from(env("DYN_EVENT_PLANE", "NATS")).eventPlane()).isEqualTo("nats");
    assertThat(RuntimeEnvironment.from(env("DYN_EVENT_PLANE", "mem")).eventPlane()).isEqualTo("mem");
    RuntimeEnvironment kafka = RuntimeEnvironment.from(env("DYN_EVENT_PLANE", "kafka"));
    assertThat(kafka.eventPlane()).isEqualTo("zmq");
    assertThat(kafka.eventPlaneFallback()).isEqualTo("kafka");
  }

  @Test
  void natsVariablesReachTheNatsPlugin() throws Exception {
    NatsSettings nats = NatsSettings.from(events(env("NATS_SERVER", "nats://10.0.0.5:4222,nats://10.0.0.6:4222",
        "NATS_AUTH_TOKEN", "tok")));
    assertThat(nats.servers()).containsExactly("nats://10.0.0.5:4222", "nats://10.0.0.6:4222");
    assertThat(nats.auth()).isEqualTo(new NatsAuth.Token("tok"));
  }

  @Test
  void zmqVariablesReachTheZmqPlugin() throws Exception {
    ZmqSettings zmq = ZmqSettings.from(events(env("DYN_ZMQ_IO_THREADS", "2", "DYN_ZMQ_BROKER_ENABLED", "yes")));
    assertThat(zmq.ioThreads()).isEqualTo(2);
    assertThat(zmq.mode()).isEqualTo(ZmqSettings.Mode.BROKER_DISCOVERED);
  }

  @Test
  void dynEventPlaneHostIsHandedToTheEventPlane() {
    // The relay only subscribes, so no plane of ours advertises an address; the value is still the event plane's.
    assertThat(events(env("DYN_EVENT_PLANE_HOST", "10.1.2.3")).property("DYN_EVENT_PLANE_HOST")).hasValue("10.1.2.3");
    assertThat(discovery(env("DYN_EVENT_PLANE_HOST", "10.1.2.3")).get("DYN_EVENT_PLANE_HOST")).isNull();
  }

  @Test
  void dynRequestPlaneSelectsThePlane() {
    assertThat(RuntimeEnvironment.from(env("DYN_REQUEST_PLANE", " TCP")).requestPlane()).isEqualTo("tcp");
    assertThat(RuntimeEnvironment.from(env("DYN_REQUEST_PLANE", "nats")).requestPlane())
        .as("kept for the registry to refuse").isEqualTo("nats");
  }

  @Test
  void tcpResponseStreamVariablesReachTheTcpPlugin() throws Exception {
    TcpRequestPlaneConfig tcp = TcpRequestPlaneConfig.fromProperties(requests(env(
        "DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.2", "DYN_TCP_RESPONSE_STREAM_PORT", "5562",
        "DYN_TCP_REQUEST_TIMEOUT", "9")));
    assertThat(tcp.responseHost()).isEqualTo(InetAddress.getByName("127.0.0.2"));
    assertThat(tcp.responsePort()).isEqualTo(5562);
    assertThat(tcp.requestTimeout()).isEqualTo(Duration.ofSeconds(9));
  }

  @Test
  void eachPluginSeesOnlyItsOwnFamilyOfVariables() throws Exception {
    Map<String, String> all = env("ETCD_AUTH_PASSWORD", "etcd-secret", "NATS_AUTH_PASSWORD", "nats-secret",
        "DYN_TCP_TLS_KEY_PATH", "/k.pem", "POD_UID", "u", "AWS_SECRET_ACCESS_KEY", "x", "DYN_RELAY_BIND", "0.0.0.0:1",
        "DYN_NAMESPACE", "relay", "HOME", "/root");
    RuntimeEnvironment rt = RuntimeEnvironment.from(all);
    assertThat(rt.discoverySettings()).containsOnlyKeys("ETCD_AUTH_PASSWORD", "POD_UID", "DYN_NAMESPACE");
    assertThat(rt.eventPlaneSettings()).containsOnlyKeys("NATS_AUTH_PASSWORD", "DYN_NAMESPACE");
    assertThat(rt.requestPlaneSettings()).containsOnlyKeys("DYN_TCP_TLS_KEY_PATH", "DYN_NAMESPACE");
    assertThat(rt.toString()).doesNotContain("secret", "/k.pem");
  }

  @Test
  void theSeedManifestsEnvironmentSelectsKubernetesNatsAndTcp() throws Exception {
    Path podinfo = Files.createDirectories(noPodinfo.resolve("podinfo"));
    RuntimeEnvironment rt = RuntimeEnvironment.from(env("DYN_NAMESPACE", "relay", "DYN_DISCOVERY_BACKEND",
        "kubernetes", "DYN_KUBE_DISCOVERY_MODE", "pod", "DYN_REQUEST_PLANE", "tcp", "DYN_EVENT_PLANE", "nats",
        "NATS_SERVER", "nats://nats.dynamo:4222", "DYN_SYSTEM_PORT", "8081", "POD_NAME", "kv-dc-relay-abc",
        "POD_NAMESPACE", "dynamo", "POD_UID", "0f0f"));
    assertThat(List.of(rt.namespace(), rt.discoveryBackend(), rt.eventPlane(), rt.requestPlane()))
        .containsExactly("relay", "kubernetes", "nats", "tcp");
    assertThat(NatsSettings.from(new EventPlaneSettings(rt.eventPlaneSettings())).servers())
        .containsExactly("nats://nats.dynamo:4222");
    assertThat(PodIdentity.resolve(DiscoverySettings.of(rt.discoverySettings()), podinfo))
        .isEqualTo(new PodIdentity("kv-dc-relay-abc", "0f0f", "dynamo", null));
  }
}
