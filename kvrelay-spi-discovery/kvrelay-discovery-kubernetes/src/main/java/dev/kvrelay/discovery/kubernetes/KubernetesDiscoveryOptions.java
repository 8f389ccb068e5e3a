package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable and thread-safe: how a {@link KubernetesDiscovery} runs.
 *
 * @param mode where readiness comes from
 * @param identity the relay's own pod (its namespace is the one watched)
 * @param debounce delay between the first watch event after a recompute and the next recompute ({@code
 *     runtime-inputs §3.2}: 500 ms); events inside the window join that recompute
 * @param retryMin first delay before a relist after a lost watch (doubling up to {@code retryMax})
 * @param retryMax longest delay between relist attempts
 */
public record KubernetesDiscoveryOptions(ReadinessMode mode, PodIdentity identity, Duration debounce,
    Duration retryMin, Duration retryMax) {

  /** The §3.2 debounce. */
  public static final Duration DEFAULT_DEBOUNCE = Duration.ofMillis(500);
  /** First relist retry delay. */
  public static final Duration DEFAULT_RETRY_MIN = Duration.ofMillis(100);
  /** Longest relist retry delay. */
  public static final Duration DEFAULT_RETRY_MAX = Duration.ofSeconds(5);

  /** Checks the durations. */
  public KubernetesDiscoveryOptions {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(identity, "identity");
    if (debounce.isNegative() || retryMin.isNegative() || retryMax.compareTo(retryMin) < 0) {
      throw new IllegalArgumentException("durations must be non-negative and retryMax >= retryMin");
    }
  }

  /**
   * The options of a deployment: {@code DYN_KUBE_DISCOVERY_MODE} and the identity ({@link
   * PodIdentity#resolve}) from {@code podinfoDir} and {@code settings}, with default timings.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) for a bad mode or an unreadable podinfo file
   */
  public static KubernetesDiscoveryOptions fromSettings(DiscoverySettings settings, Path podinfoDir)
      throws DiscoveryException {
    return new KubernetesDiscoveryOptions(ReadinessMode.parse(settings.get(ReadinessMode.SETTING, "pod")),
        PodIdentity.resolve(settings, podinfoDir), DEFAULT_DEBOUNCE, DEFAULT_RETRY_MIN, DEFAULT_RETRY_MAX);
  }

  /** A copy with another debounce. */
  public KubernetesDiscoveryOptions withDebounce(Duration value) {
    return new KubernetesDiscoveryOptions(mode, identity, value, retryMin, retryMax);
  }
}
