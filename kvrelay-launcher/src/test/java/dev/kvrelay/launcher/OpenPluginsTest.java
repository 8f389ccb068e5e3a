package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.plugin.Plugin;
import dev.kvrelay.discovery.file.FileDiscovery;
import dev.kvrelay.launcher.cli.RuntimeEnvironment;
import dev.kvrelay.spi.discovery.DiscoveryProviders;
import dev.kvrelay.spi.discovery.InMemoryDiscoveryProvider;
import dev.kvrelay.spi.eventplane.EventPlaneProviders;
import dev.kvrelay.spi.eventplane.InMemoryEventPlaneProvider;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlaneProvider;
import dev.kvrelay.spi.eventplane.RequestPlaneProviders;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plugin lookup and opening from the runtime environment: the launcher's class path (the stock jar's) finds every
 * plugin through {@link java.util.ServiceLoader}; a missing one is a start error naming the artifact to add; a
 * plugin that refuses its settings is a start error naming the plugin and the setting.
 */
class OpenPluginsTest {
  /** Registries with only the in-memory providers: what a class path without the six plugin jars finds. */
  private static final PluginRegistries MEM_ONLY = new PluginRegistries(
      DiscoveryProviders.of(List.of(new InMemoryDiscoveryProvider())),
      EventPlaneProviders.of(List.of(new InMemoryEventPlaneProvider())),
      RequestPlaneProviders.of(List.of(new InMemoryRequestPlaneProvider())));

  private static final Map<String, String> MEM = Map.of("DYN_DISCOVERY_BACKEND", "mem", "DYN_EVENT_PLANE", "mem",
      "DYN_REQUEST_PLANE", "mem");

  @TempDir Path store;

  @Test
  void theLaunchersClassPathFindsEveryPlugin() {
    PluginRegistries loaded = PluginRegistries.load();
    assertThat(loaded.discovery().providers()).extracting(Plugin::name)
        .containsExactlyInAnyOrder("etcd", "kubernetes", "file", "mem");
    assertThat(loaded.eventPlanes().providers()).extracting(Plugin::name).containsExactlyInAnyOrder("zmq", "nats", "mem");
    assertThat(loaded.requestPlanes().providers()).extracting(Plugin::name).containsExactlyInAnyOrder("tcp", "mem");
  }

  @Test
  void aMissingDefaultDiscoveryBackendNamesItsArtifact() {
    assertThatThrownBy(() -> OpenPlugins.open(RuntimeEnvironment.from(Map.of()), MEM_ONLY))
        .isInstanceOf(StartException.class)
        .hasMessage("no discovery backend named 'etcd': add dev.kvrelay:kvrelay-discovery-etcd to the class path");
  }

  @Test
  void aMissingEventPlaneOrRequestPlaneNamesItsArtifact() {
    assertThatThrownBy(() -> OpenPlugins.open(RuntimeEnvironment.from(Map.of("DYN_DISCOVERY_BACKEND", "mem",
        "DYN_EVENT_PLANE", "nats")), MEM_ONLY))
        .hasMessage("no event plane named 'nats': add dev.kvrelay:kvrelay-eventplane-nats to the class path");
    assertThatThrownBy(() -> OpenPlugins.open(RuntimeEnvironment.from(Map.of("DYN_DISCOVERY_BACKEND", "mem",
        "DYN_EVENT_PLANE", "mem")), MEM_ONLY))
        .hasMessage("no request plane named 'tcp': add dev.kvrelay:kvrelay-requestplane-tcp to the class path");
  }

  @Test
  void anUnknownDiscoveryBackendListsTheKnownNames() {
    assertThatThrownBy(() -> OpenPlugins.open(RuntimeEnvironment.from(Map.of("DYN_DISCOVERY_BACKEND", "consul")),
        PluginRegistries.load()))
        .hasMessage("no discovery backend named 'consul': known names: etcd, file, kubernetes, mem");
  }

  @Test
  void aPluginThatRefusesItsSettingsIsAStartErrorNamingTheSetting() {
    assertThatThrownBy(() -> OpenPlugins.open(RuntimeEnvironment.from(Map.of("ETCD_ENDPOINTS", "ftp://x:1")),
        PluginRegistries.load()))
        .isInstanceOf(StartException.class)
        .hasMessage("discovery backend etcd (dev.kvrelay:kvrelay-discovery-etcd) did not open: ETCD_ENDPOINTS entry"
            + " 'ftp://x:1' must start with http:// or https://");
    assertThatThrownBy(() -> OpenPlugins.open(RuntimeEnvironment.from(Map.of("DYN_DISCOVERY_BACKEND", "mem",
        "DYN_EVENT_PLANE", "nats", "NATS_SERVER", "localhost:4222")), PluginRegistries.load()))
        .hasMessageStartingWith("event plane nats (dev.kvrelay:kvrelay-eventplane-nats) did not open: NATS_SERVER"
            + " must list nats://host:port URLs");
    assertThatThrownBy(() -> OpenPlugins.open(RuntimeEnvironment.from(Map.of("DYN_DISCOVERY_BACKEND", "mem",
        "DYN_EVENT_PLANE", "mem", "DYN_TCP_RESPONSE_STREAM_PORT", "70000")), PluginRegistries.load()))
        .hasMessage("request plane tcp (dev.kvrelay:kvrelay-requestplane-tcp) did not open:"
            + " DYN_TCP_RESPONSE_STREAM_PORT must be in 0..65535, got 70000");
  }

  @Test
  void theChosenPluginsOpenWithTheirSettings() throws Exception {
    try (OpenPlugins p = OpenPlugins.open(RuntimeEnvironment.from(Map.of("DYN_DISCOVERY_BACKEND", "file",
        "DYN_FILE_KV", store.toString(), "DYN_EVENT_PLANE", "mem", "DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.1")),
        PluginRegistries.load())) {
      assertThat(p.names()).isEqualTo("discovery=file eventPlane=mem requestPlane=tcp");
      assertThat(p.discovery()).isInstanceOf(FileDiscovery.class);
      assertThat(((FileDiscovery) p.discovery()).root()).isEqualTo(store);
    }
    try (OpenPlugins p = OpenPlugins.open(RuntimeEnvironment.from(MEM), MEM_ONLY)) {
      assertThat(p.names()).isEqualTo("discovery=mem eventPlane=mem requestPlane=mem");
    }
  }
}
