package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.plugin.Plugin;

/**
 * Thread-safe (implementations are stateless factories): a discovery backend plugin, found through
 * {@link java.util.ServiceLoader} by {@link DiscoveryProviders}.
 */
public interface DiscoveryProvider extends Plugin {

  /**
   * Connects to the store.
   *
   * @param settings the provider's configuration (e.g. {@code ETCD_ENDPOINTS})
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} for bad settings, {@code UNAVAILABLE} if the
   *     store cannot be reached
   */
  DiscoveryBackend open(DiscoverySettings settings) throws DiscoveryException;
}
