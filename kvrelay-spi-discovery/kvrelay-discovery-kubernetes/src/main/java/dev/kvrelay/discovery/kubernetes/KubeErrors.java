package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.jspecify.annotations.Nullable;

/** Stateless and thread-safe: the error texts and exceptions the parts of a {@link KubernetesDiscovery} share. */
final class KubeErrors {
  private KubeErrors() {}

  /** The {@code CLOSED} error of a closed backend. */
  static DiscoveryException closed() {
    return new DiscoveryException(DiscoveryException.Kind.CLOSED, "the kubernetes discovery backend is closed");
  }

  /** A short text for a failure: the HTTP code if the API server answered, else the exception's class. */
  static String describe(@Nullable Throwable t) {
    if (t == null) {
      return "closed by the server";
    }
    if (t instanceof KubernetesClientException kubernetesClientException && kubernetesClientException.getCode() > 0) {
      return "HTTP " + kubernetesClientException.getCode() + " " + t.getMessage();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
