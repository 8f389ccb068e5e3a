package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import java.util.Locale;

/**
 * Immutable and thread-safe: where readiness comes from ({@code DYN_KUBE_DISCOVERY_MODE}, {@code
 * runtime-inputs §3.2–§3.3}).
 */
public enum ReadinessMode {
  /** Ready endpoints of labelled EndpointSlices, one CR per pod (the default). */
  POD,
  /** Ready container statuses of labelled Pods, one CR per container ({@code cr_name} rule). */
  CONTAINER;

  /** The environment variable that selects the mode. */
  public static final String SETTING = "DYN_KUBE_DISCOVERY_MODE";

  /**
   * Parses {@code pod} or {@code container} (case-insensitive); absent or empty means {@link #POD}.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) for any other value
   */
  public static ReadinessMode parse(String value) throws DiscoveryException {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "", "pod" -> POD;
      case "container" -> CONTAINER;
      default -> throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
            SETTING + " must be 'pod' or 'container', got '" + value + "'");
    };
  }

  /**
   * The CR name of a pod's container: the pod name in pod mode; in container mode the pod name for the
   * container {@code main}, else {@code {pod}-{container}} ({@code runtime-inputs §3.3}).
   */
  public static String containerCrName(String podName, String containerName) {
    return containerName.equals("main") ? podName : podName + "-" + containerName;
  }
}
