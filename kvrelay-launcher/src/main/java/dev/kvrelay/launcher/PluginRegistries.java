package dev.kvrelay.launcher;

import dev.kvrelay.api.plugin.PluginRegistry;
import dev.kvrelay.spi.discovery.DiscoveryProvider;
import dev.kvrelay.spi.discovery.DiscoveryProviders;
import dev.kvrelay.spi.eventplane.EventPlaneProvider;
import dev.kvrelay.spi.eventplane.EventPlaneProviders;
import dev.kvrelay.spi.eventplane.RequestPlaneProvider;
import dev.kvrelay.spi.eventplane.RequestPlaneProviders;
import java.util.Objects;

/**
 * Immutable and thread-safe: the three plugin registries the stock relay picks its plugins from.
 *
 * @param discovery discovery backends ({@code DYN_DISCOVERY_BACKEND})
 * @param eventPlanes event planes ({@code DYN_EVENT_PLANE})
 * @param requestPlanes request planes ({@code DYN_REQUEST_PLANE})
 */
public record PluginRegistries(PluginRegistry<DiscoveryProvider> discovery,
    PluginRegistry<EventPlaneProvider> eventPlanes, PluginRegistry<RequestPlaneProvider> requestPlanes) {

  /** Checks that every registry is present. */
  public PluginRegistries {
    Objects.requireNonNull(discovery, "discovery");
    Objects.requireNonNull(eventPlanes, "eventPlanes");
    Objects.requireNonNull(requestPlanes, "requestPlanes");
  }

  /** The providers {@link java.util.ServiceLoader} finds on the class path (the stock jar carries all six plugins). */
  public static PluginRegistries load() {
    return new PluginRegistries(DiscoveryProviders.load(), EventPlaneProviders.load(), RequestPlaneProviders.load());
  }
}
