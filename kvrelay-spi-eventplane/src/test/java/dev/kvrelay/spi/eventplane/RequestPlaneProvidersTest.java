package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.plugin.PluginNotFoundException;
import dev.kvrelay.api.plugin.PluginRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The request-plane provider registry: ServiceLoader lookup, missing-artifact messages, selection rule. */
class RequestPlaneProvidersTest {

  @Test
  void serviceLoaderFindsTheInMemoryProvider() throws Exception {
    PluginRegistry<RequestPlaneProvider> registry = RequestPlaneProviders.load();
    RequestPlaneProvider mem = registry.byName("mem");
    assertThat(mem).isInstanceOf(InMemoryRequestPlaneProvider.class);
    assertThat(mem.artifact()).isEqualTo("dev.kvrelay:kvrelay-spi-eventplane");
    assertThat(registry.best()).isSameAs(mem);
    try (RequestPlaneClient client = mem.open(Map.of())) {
      assertThat(client).isInstanceOf(InMemoryRequestPlane.class);
    }
  }

  @Test
  void missingTcpNamesTheArtifactToAdd() {
    PluginRegistry<RequestPlaneProvider> registry = RequestPlaneProviders.load();
    assertThatThrownBy(() -> registry.byName("tcp")).isInstanceOf(PluginNotFoundException.class)
        .hasMessage("no request plane named 'tcp': add dev.kvrelay:kvrelay-requestplane-tcp to the class path");
  }

  @Test
  void selectionDefaultsToTcp() {
    // runtime-inputs.md §9: DYN_REQUEST_PLANE defaults to tcp (newest upstream)
    assertThat(RequestPlaneProviders.selectedName(null)).isEqualTo("tcp");
    assertThat(RequestPlaneProviders.selectedName(" ")).isEqualTo("tcp");
    assertThat(RequestPlaneProviders.selectedName(" NATS ")).isEqualTo("nats");
  }
}
