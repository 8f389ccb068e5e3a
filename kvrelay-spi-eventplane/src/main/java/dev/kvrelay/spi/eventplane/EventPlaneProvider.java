package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.plugin.Plugin;

/**
 * Thread-safe (implementations are stateless factories): an event-plane transport found through
 * {@link java.util.ServiceLoader}, e.g. {@code zmq}, {@code nats}, {@code mem}.
 */
public interface EventPlaneProvider extends Plugin {

  /**
   * Opens a plane.
   *
   * @throws EventPlaneException if the settings are invalid or the transport cannot be reached
   */
  EventPlane open(EventPlaneSettings settings) throws EventPlaneException;
}
