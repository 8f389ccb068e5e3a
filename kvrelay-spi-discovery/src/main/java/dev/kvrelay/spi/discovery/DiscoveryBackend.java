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

  /**
   * This process's registrations in the store (see {@link DiscoveryRegistrar}): each backend binds it to its own
   * notion of a process (lease, pod CR, connection id).
   *
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} if the backend lacks what a registration needs (e.g. the
   *     pod identity, or the backend has no registrations — the default, for test doubles), {@code UNAVAILABLE} if
   *     the store cannot be reached, {@code CLOSED} after {@link #close()}
   */
  default DiscoveryRegistrar registrar() throws DiscoveryException {
    throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
        getClass().getSimpleName() + " does not register records");
  }

  /** Closes every watch (as {@link DiscoveryWatch#close()}) and releases the connection. Idempotent. */
  @Override
  void close();
}
