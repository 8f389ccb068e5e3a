package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryProvider;
import dev.kvrelay.spi.discovery.DiscoverySettings;

/**
 * Stateless and thread-safe: the {@code etcd} discovery provider; each {@link #open} connects a new {@link
 * EtcdDiscovery} configured from {@code ETCD_*} settings ({@link EtcdSettings}).
 */
public final class EtcdDiscoveryProvider implements DiscoveryProvider {

  /** The provider name ({@code DYN_DISCOVERY_BACKEND=etcd}). */
  public static final String NAME = "etcd";
  /** The artifact that ships it. */
  public static final String ARTIFACT = "dev.kvrelay:kvrelay-discovery-etcd";
  /** Upstream's default backend ({@code runtime-inputs.md} §9), so it wins when no backend is named. */
  public static final int PRIORITY = 100;

  /** For {@link java.util.ServiceLoader}. */
  public EtcdDiscoveryProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return ARTIFACT;
  }

  @Override
  public int priority() {
    return PRIORITY;
  }

  @Override
  public DiscoveryBackend open(DiscoverySettings settings) throws DiscoveryException {
    return EtcdDiscovery.open(EtcdSettings.from(settings));
  }
}
