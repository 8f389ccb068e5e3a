package dev.kvrelay.spi.discovery;

/**
 * Stateless and thread-safe: the {@code mem} provider; each {@link #open} returns a new, empty {@link
 * InMemoryDiscovery}. It has the lowest priority, so any real backend on the class path is preferred.
 */
public final class InMemoryDiscoveryProvider implements DiscoveryProvider {

  /** The provider name. */
  public static final String NAME = "mem";
  /** The artifact that ships it. */
  public static final String ARTIFACT = "dev.kvrelay:kvrelay-spi-discovery";

  /** Below any real backend. (Not {@code Integer.MIN_VALUE}: the registry negates priorities.) */
  public static final int LOWEST_PRIORITY = -1000;

  /** For {@link java.util.ServiceLoader}. */
  public InMemoryDiscoveryProvider() {}

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
    return LOWEST_PRIORITY;
  }

  @Override
  public DiscoveryBackend open(DiscoverySettings settings) {
    return new InMemoryDiscovery();
  }
}
