package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.OwnedKeysRegistrar;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (synchronized, see {@link OwnedKeysRegistrar}): the keys one {@link KubernetesDiscovery#registrar()}
 * put into the relay's own CR ({@link OwnRegistration}); closing it withdraws them (a failed withdrawal is counted
 * and logged).
 */
final class CrRegistrar extends OwnedKeysRegistrar {
  // The backend's logger: operators configure one name for the whole backend.
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesDiscovery.class);

  private final OwnRegistration registration;

  CrRegistrar(long instanceId, OwnRegistration registration) {
    super(instanceId);
    this.registration = registration;
  }

  @Override
  protected void write(DiscoveryRecord record) throws DiscoveryException {
    registration.register(List.of(record));
  }

  @Override
  protected void withdraw(DiscoveryKey key) throws DiscoveryException {
    registration.unregister(List.of(key));
  }

  @Override
  protected void withdrawOnClose(List<DiscoveryKey> keys) {
    if (registration.closed()) {
      return;
    }
    try {
      registration.unregister(keys);
    } catch (DiscoveryException e) {
      registration.cleanupFailed();
      LOG.warn("could not withdraw {} own records on close: {}", keys.size(), e.getMessage());
    }
  }

  @Override
  protected DiscoveryException closedError() {
    return KubeErrors.closed();
  }

  @Override
  protected boolean storeClosed() {
    return registration.closed();
  }
}
