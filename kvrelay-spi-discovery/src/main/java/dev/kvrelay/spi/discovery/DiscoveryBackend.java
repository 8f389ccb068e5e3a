package dev.kvrelay.spi.discovery;

/**
 * Thread-safe: an open connection to one discovery store, from which any number of watches can be
 * started.
 */
public interface DiscoveryBackend extends AutoCloseable {

  /**
   * Starts a watch: the listener first receives {@link DiscoveryListener#onSnapshot} with the complete
   * current state within {@code scope}, then changes, on one delivery thread per watch (see {@link
   * DiscoveryListener} for the ordering contract).
   *
   * @throws DiscoveryException {@code CLOSED} after {@link #close()}, {@code UNAVAILABLE} if the watch
   *     cannot be set up
   */
  DiscoveryWatch watch(DiscoveryScope scope, DiscoveryListener listener) throws DiscoveryException;

  /** Closes every watch (as {@link DiscoveryWatch#close()}) and releases the connection. Idempotent. */
  @Override
  void close();
}
