package dev.kvrelay.discovery.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code runtime-inputs §3.3, §3.5, §9}: identity from {@code /etc/podinfo} first, then the environment. */
class PodIdentityTest {
  private static final DiscoverySettings ENV = DiscoverySettings.of(Map.of(
      "POD_NAME", "env-pod", "POD_UID", "env-uid", "POD_NAMESPACE", "env-ns", "CONTAINER_NAME", "engine-0"));

  @Test
  void podinfoFilesWinOverTheEnvironment(@TempDir Path podinfo) throws Exception {
    Files.writeString(podinfo.resolve("pod_name"), "kv-dc-relay-7f9c\n");
    Files.writeString(podinfo.resolve("pod_uid"), "6f1c-uid\n");
    Files.writeString(podinfo.resolve("pod_namespace"), "dynamo");
    PodIdentity id = PodIdentity.resolve(ENV, podinfo);
    assertThat(id).isEqualTo(new PodIdentity("kv-dc-relay-7f9c", "6f1c-uid", "dynamo", "engine-0"));
  }

  @Test
  void missingOrEmptyFilesFallBackToTheEnvironment(@TempDir Path podinfo) throws Exception {
    Files.writeString(podinfo.resolve("pod_name"), "  \n");
    PodIdentity id = PodIdentity.resolve(ENV, podinfo);
    assertThat(id).isEqualTo(new PodIdentity("env-pod", "env-uid", "env-ns", "engine-0"));
  }

  @Test
  void namespaceDefaultsToDefault(@TempDir Path podinfo) throws Exception {
    PodIdentity id = PodIdentity.resolve(DiscoverySettings.empty(), podinfo);
    assertThat(id).isEqualTo(new PodIdentity(null, null, "default", null));
  }

  @Test
  void crNameFollowsTheModeRule() throws Exception {
    assertThat(new PodIdentity("p", "u", "ns", "engine-0").crName(ReadinessMode.POD)).isEqualTo("p");
    assertThat(new PodIdentity("p", "u", "ns", "engine-0").crName(ReadinessMode.CONTAINER)).isEqualTo("p-engine-0");
    assertThat(new PodIdentity("p", "u", "ns", "main").crName(ReadinessMode.CONTAINER)).isEqualTo("p");
    assertThat(ReadinessMode.containerCrName("worker-0", "engine-0")).isEqualTo("worker-0-engine-0");
  }

  @Test
  void registeringWithoutIdentityIsAConfigurationError() {
    PodIdentity noName = new PodIdentity(null, "u", "ns", null);
    assertThatThrownBy(() -> noName.crName(ReadinessMode.POD)).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
    PodIdentity noContainer = new PodIdentity("p", "u", "ns", null);
    assertThatThrownBy(() -> noContainer.crName(ReadinessMode.CONTAINER)).hasMessageContaining("CONTAINER_NAME");
    assertThatThrownBy(() -> new PodIdentity("p", null, "ns", null).requireUid()).hasMessageContaining("POD_UID");
  }

  @Test
  void modeParsesPodAndContainerOnly() throws Exception {
    assertThat(ReadinessMode.parse("")).isEqualTo(ReadinessMode.POD);
    assertThat(ReadinessMode.parse("pod")).isEqualTo(ReadinessMode.POD);
    assertThat(ReadinessMode.parse("Container")).isEqualTo(ReadinessMode.CONTAINER);
    assertThatThrownBy(() -> ReadinessMode.parse("node")).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e).hasMessageContaining("DYN_KUBE_DISCOVERY_MODE"));
  }
}
