package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.plugin.PluginRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the registry of request-plane providers and the transport-selection rule.
 */
public final class RequestPlaneProviders {
  /** What the providers are, for messages. */
  public static final String KIND = "request plane";
  /** The transport used when {@code DYN_REQUEST_PLANE} is unset or empty (runtime-inputs.md §6.4, §9). */
  public static final String DEFAULT_NAME = "tcp";
  /** Known provider names and the artifacts that ship them. */
  public static final Map<String, String> KNOWN_ARTIFACTS = Map.of(
      "tcp", "dev.kvrelay:kvrelay-requestplane-tcp",
      "mem", "dev.kvrelay:kvrelay-spi-eventplane");

  private RequestPlaneProviders() {}

  /** The providers on the class path or module path ({@link ServiceLoader}). */
  public static PluginRegistry<RequestPlaneProvider> load() {
    return of(ServiceLoader.load(RequestPlaneProvider.class));
  }

  /** A registry over the given providers, with the known artifacts for error messages. */
  public static PluginRegistry<RequestPlaneProvider> of(Iterable<? extends RequestPlaneProvider> providers) {
    return PluginRegistry.of(KIND, providers, KNOWN_ARTIFACTS);
  }

  /**
   * The provider name selected by the value of {@code DYN_REQUEST_PLANE}: {@code tcp} when unset or blank
   * (the newest upstream default), else the trimmed, lowercased value.
   */
  public static String selectedName(@Nullable String dynRequestPlane) {
    if (dynRequestPlane == null || dynRequestPlane.isBlank()) {
      return DEFAULT_NAME;
    }
    return dynRequestPlane.trim().toLowerCase(Locale.ROOT);
  }
}
