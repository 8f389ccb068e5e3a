package dev.kvrelay.spi.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.plugin.PluginNotFoundException;
import dev.kvrelay.api.plugin.PluginRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DiscoveryProvidersTest {

  @Test
  void serviceLoaderFindsTheInMemoryProvider() throws Exception {
    PluginRegistry<DiscoveryProvider> registry = DiscoveryProviders.load();
    DiscoveryProvider mem = registry.byName("mem");
    assertThat(mem).isInstanceOf(InMemoryDiscoveryProvider.class);
    assertThat(mem.artifact()).isEqualTo("dev.kvrelay:kvrelay-spi-discovery");
    assertThat(registry.best()).isSameAs(mem);
    try (DiscoveryBackend backend = mem.open(DiscoverySettings.empty())) {
      assertThat(backend).isInstanceOf(InMemoryDiscovery.class);
    }
  }

  @Test
  void missingKnownBackendsNameTheirArtifacts() {
    PluginRegistry<DiscoveryProvider> registry = DiscoveryProviders.load();
    assertThatThrownBy(() -> registry.byName("etcd"))
        .isInstanceOf(PluginNotFoundException.class)
        .hasMessage("no discovery backend named 'etcd': add dev.kvrelay:kvrelay-discovery-etcd to the class path");
    assertThatThrownBy(() -> registry.byName("kubernetes"))
        .hasMessage("no discovery backend named 'kubernetes': add dev.kvrelay:kvrelay-discovery-kubernetes to the class path");
    assertThatThrownBy(() -> registry.byName("file"))
        .hasMessage("no discovery backend named 'file': add dev.kvrelay:kvrelay-discovery-file to the class path");
    assertThatThrownBy(() -> registry.byName("consul"))
        .hasMessage("no discovery backend named 'consul': known names: etcd, file, kubernetes, mem");
  }

  @Test
  void anyRealBackendOutranksMem() throws Exception {
    DiscoveryProvider etcd = new DiscoveryProvider() {
      @Override
      public String name() {
        return "etcd";
      }

      @Override
      public String artifact() {
        return "dev.kvrelay:kvrelay-discovery-etcd";
      }

      @Override
      public DiscoveryBackend open(DiscoverySettings settings) {
        return new InMemoryDiscovery();
      }
    };
    PluginRegistry<DiscoveryProvider> registry = DiscoveryProviders.of(List.of(new InMemoryDiscoveryProvider(), etcd));
    assertThat(registry.best()).isSameAs(etcd);
    assertThat(registry.providers()).extracting(DiscoveryProvider::name).containsExactly("etcd", "mem");
  }

  @Test
  void settingsNeverPrintValues() throws Exception {
    DiscoverySettings s = DiscoverySettings.of(Map.of("ETCD_ENDPOINTS", "http://e:2379", "ETCD_AUTH_PASSWORD", "hunter2"));
    assertThat(s.toString()).isEqualTo("DiscoverySettings[ETCD_AUTH_PASSWORD, ETCD_ENDPOINTS]").doesNotContain("hunter2");
    assertThat(s.get("ETCD_ENDPOINTS")).isEqualTo("http://e:2379");
    assertThat(s.get("ETCD_AUTH_USERNAME")).isNull();
    assertThat(s.get("POD_NAMESPACE", "default")).isEqualTo("default");
    assertThat(s.with("POD_NAMESPACE", "team-a").get("POD_NAMESPACE", "default")).isEqualTo("team-a");
    assertThat(s.require("ETCD_ENDPOINTS")).isEqualTo("http://e:2379");
    assertThatThrownBy(() -> s.require("CONTAINER_NAME"))
        .isInstanceOfSatisfying(DiscoveryException.class, e -> {
          assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION);
          assertThat(e.getMessage()).isEqualTo("CONTAINER_NAME is not set");
        });
    assertThat(DiscoverySettings.fromEnvironment().asMap()).isEqualTo(new java.util.TreeMap<>(System.getenv()));
  }
}
