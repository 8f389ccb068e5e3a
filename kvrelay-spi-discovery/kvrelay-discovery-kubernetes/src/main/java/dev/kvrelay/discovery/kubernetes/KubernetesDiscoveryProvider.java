package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryProvider;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;

/**
 * Stateless and thread-safe: the {@code kubernetes} discovery provider ({@code DYN_DISCOVERY_BACKEND=kubernetes}).
 * It connects with fabric8's usual configuration (in-cluster service account, else kubeconfig), reads the
 * relay's identity from {@code /etc/podinfo} and the environment, and watches the pod's own namespace.
 */
public final class KubernetesDiscoveryProvider implements DiscoveryProvider {
  /** The provider name. */
  public static final String NAME = "kubernetes";
  /** The artifact that ships it. */
  public static final String ARTIFACT = "dev.kvrelay:kvrelay-discovery-kubernetes";

  /** For {@link java.util.ServiceLoader}. */
  public KubernetesDiscoveryProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return ARTIFACT;
  }

  @Override
  public KubernetesDiscovery open(DiscoverySettings settings) throws DiscoveryException {
    return open(settings, PodIdentity.DEFAULT_PODINFO_DIR);
  }

  /** As {@link #open(DiscoverySettings)}, reading the Downward API files from {@code podinfoDir}. */
  public KubernetesDiscovery open(DiscoverySettings settings, Path podinfoDir) throws DiscoveryException {
    KubernetesDiscoveryOptions options = KubernetesDiscoveryOptions.fromSettings(settings, podinfoDir);
    KubernetesClient client;
    try {
      client = new KubernetesClientBuilder()
          .withConfig(KubernetesDiscovery.clientConfig(Config.autoConfigure(null))).build();
    } catch (KubernetesClientException | IllegalStateException e) {
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE,
          "cannot configure the Kubernetes client: " + e.getMessage(), e);
    }
    return KubernetesDiscovery.start(client, options, true);
  }
}
