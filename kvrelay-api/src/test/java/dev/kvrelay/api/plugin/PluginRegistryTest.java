package dev.kvrelay.api.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PluginRegistryTest {
  record Fake(String name, String artifact, boolean isAvailable, int priority) implements Plugin {}

  private static final Map<String, String> KNOWN = Map.of(
      "etcd", "dev.kvrelay:kvrelay-discovery-etcd",
      "kubernetes", "dev.kvrelay:kvrelay-discovery-kubernetes");

  @Test
  void findsByNameCaseInsensitively() throws Exception {
    Fake mem = new Fake("mem", "dev.kvrelay:kvrelay-spi-discovery", true, 0);
    PluginRegistry<Fake> r = PluginRegistry.of("discovery backend", List.of(mem), KNOWN);
    assertThat(r.byName("MEM")).isSameAs(mem);
  }

  @Test
  void missingKnownProviderNamesTheArtifactToAdd() {
    PluginRegistry<Fake> r = PluginRegistry.of("discovery backend", List.of(), KNOWN);
    assertThatThrownBy(() -> r.byName("etcd"))
        .isInstanceOf(PluginNotFoundException.class)
        .hasMessage("no discovery backend named 'etcd': add dev.kvrelay:kvrelay-discovery-etcd to the class path");
  }

  @Test
  void unknownNameListsTheKnownNames() {
    Fake mem = new Fake("mem", "a:b", true, 0);
    PluginRegistry<Fake> r = PluginRegistry.of("discovery backend", List.of(mem), KNOWN);
    assertThatThrownBy(() -> r.byName("consul"))
        .hasMessage("no discovery backend named 'consul': known names: etcd, kubernetes, mem");
  }

  @Test
  void unavailableProviderIsReportedAsSuch() {
    Fake k8s = new Fake("kubernetes", "dev.kvrelay:kvrelay-discovery-kubernetes", false, 5);
    PluginRegistry<Fake> r = PluginRegistry.of("discovery backend", List.of(k8s), KNOWN);
    assertThatThrownBy(() -> r.byName("kubernetes")).hasMessageContaining("unavailable");
  }

  @Test
  void bestIsTheAvailableProviderWithTheHighestPriority() throws Exception {
    Fake low = new Fake("mem", "a:mem", true, 0);
    Fake high = new Fake("etcd", "a:etcd", true, 10);
    Fake highest = new Fake("kubernetes", "a:k8s", false, 20);
    PluginRegistry<Fake> r = PluginRegistry.of("discovery backend", List.of(low, highest, high), KNOWN);
    assertThat(r.best()).isSameAs(high);
    assertThat(r.providers()).containsExactly(highest, high, low);
  }

  @Test
  void extremePrioritiesOrderCorrectly() {
    Fake lowest = new Fake("a", "x:a", true, Integer.MIN_VALUE);
    Fake highest = new Fake("b", "x:b", true, Integer.MAX_VALUE);
    PluginRegistry<Fake> r = PluginRegistry.of("event plane", List.of(lowest, highest), Map.of());
    assertThat(r.providers()).containsExactly(highest, lowest);
  }

  @Test
  void noAvailableProviderFails() {
    PluginRegistry<Fake> r = PluginRegistry.of("event plane", List.of(), Map.of("zmq", "x:zmq"));
    assertThatThrownBy(r::best).hasMessageContaining("x:zmq");
  }
}
