package dev.kvrelay.spi.eventplane;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Immutable and thread-safe: the settings an {@link EventPlaneProvider} opens a plane with, as named
 * string properties (the launcher passes the relevant environment, e.g. {@code NATS_SERVER},
 * {@code DYN_ZMQ_IO_THREADS}; each plugin documents the names it reads).
 *
 * @param properties name → value
 */
public record EventPlaneSettings(Map<String, String> properties) {

  /** Copies the map. */
  public EventPlaneSettings {
    properties = Map.copyOf(new TreeMap<>(properties));
  }

  /** No properties. */
  public static EventPlaneSettings empty() {
    return new EventPlaneSettings(Map.of());
  }

  /** The value of {@code name}, if set. */
  public Optional<String> property(String name) {
    return Optional.ofNullable(properties.get(name));
  }
}
