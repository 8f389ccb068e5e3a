package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (synchronized): the keys one {@link KubernetesDiscovery#registrar()} put into the relay's own CR
 * ({@link OwnRegistration}); closing it withdraws them (a failed withdrawal is counted and logged).
 */
final class CrRegistrar implements DiscoveryRegistrar {
  // The backend's logger: operators configure one name for the whole backend.
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesDiscovery.class);

  private final long instanceId;
  private final OwnRegistration registration;
  private final Set<DiscoveryKey> owned = new LinkedHashSet<>();
  private boolean registrarClosed;

  CrRegistrar(long instanceId, OwnRegistration registration) {
    this.instanceId = instanceId;
    this.registration = registration;
  }

  @Override
  public long instanceId() {
    return instanceId;
  }

  @Override
  public synchronized void register(DiscoveryRecord record) throws DiscoveryException {
    checkOpen();
    DiscoveryRegistrar.requireOwnedBy(instanceId, record.key());
    registration.register(List.of(record));
    owned.add(record.key());
  }

  @Override
  public synchronized boolean deregister(DiscoveryKey key) throws DiscoveryException {
    checkOpen();
    if (!owned.contains(key)) {
      return false;
    }
    registration.unregister(List.of(key));
    owned.remove(key);
    return true;
  }

  private void checkOpen() throws DiscoveryException {
    if (registrarClosed || registration.closed()) {
      throw KubeErrors.closed();
    }
  }

  @Override
  public synchronized void close() {
    if (registrarClosed) {
      return;
    }
    registrarClosed = true;
    if (owned.isEmpty() || registration.closed()) {
      return;
    }
    try {
      registration.unregister(List.copyOf(owned));
    } catch (DiscoveryException e) {
      registration.cleanupFailed();
      LOG.warn("could not withdraw {} own records on close: {}", owned.size(), e.getMessage());
    }
    owned.clear();
  }
}
