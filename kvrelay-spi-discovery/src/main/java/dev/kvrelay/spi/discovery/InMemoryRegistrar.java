package dev.kvrelay.spi.discovery;

import java.util.List;

/**
 * Thread-safe (synchronized, see {@link OwnedKeysRegistrar}): an {@link InMemoryDiscovery} registration — a process
 * with its own instance id whose records are {@link InMemoryDiscovery#put put} into the store and removed again when
 * it closes.
 */
final class InMemoryRegistrar extends OwnedKeysRegistrar {
  private final InMemoryDiscovery store;

  InMemoryRegistrar(InMemoryDiscovery store, long instanceId) {
    super(instanceId);
    this.store = store;
  }

  @Override
  protected void write(DiscoveryRecord record) {
    store.put(record);
  }

  @Override
  protected void withdraw(DiscoveryKey key) {
    store.remove(key);
  }

  @Override
  protected void withdrawOnClose(List<DiscoveryKey> keys) {
    for (DiscoveryKey k : keys) {
      store.remove(k);
    }
  }

  @Override
  protected DiscoveryException closedError() {
    return new DiscoveryException(DiscoveryException.Kind.CLOSED, "in-memory registration is closed");
  }
}
