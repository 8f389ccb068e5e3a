package dev.kvrelay.discovery.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryProvider;
import dev.kvrelay.spi.discovery.DiscoveryProviders;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The provider is found through {@link java.util.ServiceLoader} as {@code kubernetes} and checks its settings. */
class KubernetesDiscoveryProviderTest {

  @Test
  void serviceLoaderFindsTheKubernetesProvider() throws Exception {
    DiscoveryProvider p = DiscoveryProviders.load().byName("kubernetes");
    assertThat(p).isInstanceOf(KubernetesDiscoveryProvider.class);
    assertThat(p.artifact()).isEqualTo("dev.kvrelay:kvrelay-discovery-kubernetes")
        .isEqualTo(DiscoveryProviders.KNOWN_ARTIFACTS.get("kubernetes"));
  }

  @Test
  void aBadModeIsAConfigurationErrorBeforeAnyConnection(@TempDir Path podinfo) {
    DiscoverySettings settings = DiscoverySettings.of(Map.of("DYN_KUBE_DISCOVERY_MODE", "node"));
    assertThatThrownBy(() -> new KubernetesDiscoveryProvider().open(settings, podinfo))
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
  }

  @Test
  void optionsComeFromTheSettingsAndThePodinfoDirectory(@TempDir Path podinfo) throws Exception {
    java.nio.file.Files.writeString(podinfo.resolve("pod_namespace"), "team-a");
    KubernetesDiscoveryOptions o = KubernetesDiscoveryOptions.fromSettings(DiscoverySettings.of(Map.of(
        "DYN_KUBE_DISCOVERY_MODE", "container", "POD_NAME", "w", "POD_UID", "u", "CONTAINER_NAME", "engine-0")), podinfo);
    assertThat(o.mode()).isEqualTo(ReadinessMode.CONTAINER);
    assertThat(o.identity()).isEqualTo(new PodIdentity("w", "u", "team-a", "engine-0"));
    assertThat(o.debounce()).isEqualTo(KubernetesDiscoveryOptions.DEFAULT_DEBOUNCE).hasMillis(500);
  }
}
