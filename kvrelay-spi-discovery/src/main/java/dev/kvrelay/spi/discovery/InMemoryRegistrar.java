package dev.kvrelay.spi.discovery;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Thread-safe (synchronized): an {@link InMemoryDiscovery} registration — a process with its own instance id whose
 * records are {@link InMemoryDiscovery#put put} into the store and removed again when it closes.
 */
final class InMemoryRegistrar implements DiscoveryRegistrar {
  private final InMemoryDiscovery store;
  private final long instanceId;
  private final Set<DiscoveryKey> owned = new LinkedHashSet<>();
  private boolean closed;

  InMemoryRegistrar(InMemoryDiscovery store, long instanceId) {
    this.store = store;
    this.instanceId = instanceId;
  }

  @Override
  public long instanceId() {
    return instanceId;
  }

  @Override
  public synchronized void register(DiscoveryRecord record) throws DiscoveryException {
    checkOpen();
    DiscoveryRegistrar.requireOwnedBy(instanceId, record.key());
    store.put(record);
    owned.add(record.key());
  }

  @Override
  public synchronized boolean deregister(DiscoveryKey key) throws DiscoveryException {
    checkOpen();
    if (!owned.remove(key)) {
      return false;
    }
    store.remove(key);
    return true;
  }

  private void checkOpen() throws DiscoveryException {
    if (closed) {
      throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "in-memory registration is closed");
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (DiscoveryKey k : owned) {
      store.remove(k);
    }
    owned.clear();
  }
}
