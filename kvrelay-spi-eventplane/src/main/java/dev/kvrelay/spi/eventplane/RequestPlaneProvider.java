package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.plugin.Plugin;
import java.util.Map;

/**
 * Thread-safe (implementations are stateless factories): a request-plane transport found through
 * {@link java.util.ServiceLoader}, e.g. {@code tcp} ({@code DYN_REQUEST_PLANE}), {@code mem}.
 */
public interface RequestPlaneProvider extends Plugin {

  /**
   * Opens a recovery-query client.
   *
   * @param properties named settings (the launcher passes the environment; each plugin documents the names
   *     it reads, e.g. {@code DYN_TCP_RESPONSE_STREAM_HOST})
   * @throws IllegalArgumentException if a setting is invalid (the message names it)
   * @throws RequestPlaneException kind {@link RequestPlaneException.Kind#UNREACHABLE} if the transport cannot
   *     start (e.g. its response listener cannot bind)
   */
  RequestPlaneClient open(Map<String, String> properties) throws RequestPlaneException;
}
