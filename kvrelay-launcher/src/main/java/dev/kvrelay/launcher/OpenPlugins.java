package dev.kvrelay.launcher;

import dev.kvrelay.api.plugin.PluginNotFoundException;
import dev.kvrelay.launcher.cli.RuntimeEnvironment;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryProvider;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneProvider;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.RequestPlaneProvider;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (the planes are thread-safe; {@link #close()} is idempotent through them): the three open plugin
 * instances a relay runs on, with the names they were chosen by. {@link #close()} closes them in reverse order of
 * opening: request plane, event plane, discovery.
 *
 * @param discovery the open discovery backend
 * @param eventPlane the open event plane
 * @param requestPlane the open request plane (recovery queries)
 * @param names {@code discovery=<name> eventPlane=<name> requestPlane=<name>}, for messages
 */
public record OpenPlugins(DiscoveryBackend discovery, EventPlane eventPlane, RequestPlaneClient requestPlane,
    String names) implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OpenPlugins.class);

  /** Checks that every part is present. */
  public OpenPlugins {
    Objects.requireNonNull(discovery, "discovery");
    Objects.requireNonNull(eventPlane, "eventPlane");
    Objects.requireNonNull(requestPlane, "requestPlane");
    Objects.requireNonNull(names, "names");
  }

  /**
   * Looks up the plugins {@code runtime} names in {@code registries} and opens each with its settings: discovery
   * first, then the event plane, then the request plane. On a failure everything already opened is closed.
   *
   * @throws StartException naming the plugin kind and name: for a missing provider the registry's message, which
   *     names the artifact to add (or lists the known names); for a refused opening the plugin's own message
   */
  public static OpenPlugins open(RuntimeEnvironment runtime, PluginRegistries registries) throws StartException {
    if (runtime.eventPlaneFallback() != null) {
      LOG.warn("DYN_EVENT_PLANE='{}' is not an event plane (known: {}); using {}", runtime.eventPlaneFallback(),
          String.join(", ", RuntimeEnvironment.KNOWN_EVENT_PLANES), runtime.eventPlane());
    }
    DiscoveryProvider dp = lookup(() -> registries.discovery().byName(runtime.discoveryBackend()));
    EventPlaneProvider ep = lookup(() -> registries.eventPlanes().byName(runtime.eventPlane()));
    RequestPlaneProvider rp = lookup(() -> registries.requestPlanes().byName(runtime.requestPlane()));
    DiscoveryBackend discovery;
    try {
      discovery = dp.open(DiscoverySettings.of(runtime.discoverySettings()));
    } catch (DiscoveryException | RuntimeException e) {
      throw new StartException("discovery backend " + dp.name() + " (" + dp.artifact() + ") did not open: "
          + e.getMessage(), e);
    }
    EventPlane events;
    try {
      events = ep.open(new EventPlaneSettings(runtime.eventPlaneSettings()));
    } catch (EventPlaneException | RuntimeException e) {
      discovery.close();
      throw new StartException("event plane " + ep.name() + " (" + ep.artifact() + ") did not open: "
          + e.getMessage(), e);
    }
    RequestPlaneClient requests;
    try {
      requests = rp.open(runtime.requestPlaneSettings());
    } catch (RequestPlaneException | RuntimeException e) {
      events.close();
      discovery.close();
      throw new StartException("request plane " + rp.name() + " (" + rp.artifact() + ") did not open: "
          + e.getMessage(), e);
    }
    String names = "discovery=" + dp.name() + " eventPlane=" + ep.name() + " requestPlane=" + rp.name();
    LOG.info("plugins open: {} ({}, {}, {})", names, dp.artifact(), ep.artifact(), rp.artifact());
    return new OpenPlugins(discovery, events, requests, names);
  }

  /** Not thread-safe: confined to one lookup; a registry lookup that may not find its provider. */
  private interface Lookup<P> {
    P get() throws PluginNotFoundException;
  }

  private static <P> P lookup(Lookup<P> lookup) throws StartException {
    try {
      return lookup.get();
    } catch (PluginNotFoundException e) {
      throw new StartException(String.valueOf(e.getMessage()), e);
    }
  }

  /** Closes the request plane, the event plane, then discovery; each close is attempted even if one throws. */
  @Override
  public void close() {
    try {
      requestPlane.close();
    } finally {
      try {
        eventPlane.close();
      } finally {
        discovery.close();
      }
    }
  }
}
