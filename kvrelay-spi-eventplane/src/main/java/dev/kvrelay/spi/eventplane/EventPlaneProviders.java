package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.plugin.PluginRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the registry of event-plane providers and the transport-selection rule.
 */
public final class EventPlaneProviders {
  /** What the providers are, for messages. */
  public static final String KIND = "event plane";
  /** The transport used when {@code DYN_EVENT_PLANE} is unset or empty (runtime-inputs.md §5.1). */
  public static final String DEFAULT_NAME = "zmq";
  /** Known provider names and the artifacts that ship them. */
  public static final Map<String, String> KNOWN_ARTIFACTS = Map.of(
      "zmq", "dev.kvrelay:kvrelay-eventplane-zmq",
      "nats", "dev.kvrelay:kvrelay-eventplane-nats",
      "mem", "dev.kvrelay:kvrelay-spi-eventplane");

  private EventPlaneProviders() {}

  /** The providers on the class path or module path ({@link ServiceLoader}). */
  public static PluginRegistry<EventPlaneProvider> load() {
    return of(ServiceLoader.load(EventPlaneProvider.class));
  }

  /** A registry over the given providers, with the known artifacts for error messages. */
  public static PluginRegistry<EventPlaneProvider> of(Iterable<? extends EventPlaneProvider> providers) {
    return PluginRegistry.of(KIND, providers, KNOWN_ARTIFACTS);
  }

  /**
   * The provider name selected by the value of {@code DYN_EVENT_PLANE}: {@code zmq} when unset or blank
   * (the newest upstream default for every discovery backend), else the trimmed, lowercased value.
   */
  public static String selectedName(@Nullable String dynEventPlane) {
    if (dynEventPlane == null || dynEventPlane.isBlank()) {
      return DEFAULT_NAME;
    }
    return dynEventPlane.trim().toLowerCase(Locale.ROOT);
  }
}
