package dev.kvrelay.spi.discovery;

import java.util.List;

/**
 * Not thread-safe: driven by one contract test at a time; the store behind a backend under test, which
 * the {@link DiscoveryBackendContract} mutates as a real worker would (register, deregister, patch taints,
 * write garbage, lose the connection). Each backend's test supplies one, writing through the store's own
 * client (an etcd client, a Kubernetes API fake, a file) rather than through the backend.
 */
public interface DiscoveryWorld extends AutoCloseable {

  /** The backend under test, connected to this world's store. */
  DiscoveryBackend backend();

  /** Registers (or overwrites) the object. */
  void put(DiscoveryRecord record) throws Exception;

  /** Deregisters the object (absent: no effect). */
  void remove(DiscoveryKey key) throws Exception;

  /**
   * Patches {@code runtime_config.taints} of a stored model card, as a worker does; an unknown key has no
   * effect.
   */
  void updateTaints(ModelKey key, List<String> taints) throws Exception;

  /** Writes a raw value at {@code path} of {@code kind}'s bucket (or map) that the backend cannot decode. */
  void putMalformed(DiscoveryKind kind, String path, String rawValue) throws Exception;

  /** True if this world can cut the backend off and reconnect it ({@link #beginOutage}, {@link #endOutage}). */
  default boolean supportsOutage() {
    return false;
  }

  /** Cuts the backend off: changes made now are not seen until {@link #endOutage()}. */
  default void beginOutage() throws Exception {
    throw new UnsupportedOperationException("outage not supported");
  }

  /** Reconnects the backend, which must then deliver {@link DiscoveryListener#onResync}. */
  default void endOutage() throws Exception {
    throw new UnsupportedOperationException("outage not supported");
  }

  /** Closes the backend and releases the store. */
  @Override
  void close() throws Exception;
}
