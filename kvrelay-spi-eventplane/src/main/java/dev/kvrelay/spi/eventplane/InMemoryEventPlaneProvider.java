package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Thread-safe (stateless): the {@code mem} event-plane provider; every {@link #open} returns a new,
 * independent {@link InMemoryEventPlane} whose subscriptions ignore channels. Its priority is the lowest
 * so that any real transport on the class path wins {@link dev.kvrelay.api.plugin.PluginRegistry#best()}.
 */
public final class InMemoryEventPlaneProvider implements EventPlaneProvider {
  /** The provider name. */
  public static final String NAME = "mem";

  /** For {@link java.util.ServiceLoader}. */
  public InMemoryEventPlaneProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return Objects.requireNonNull(EventPlaneProviders.KNOWN_ARTIFACTS.get(NAME), NAME);
  }

  @Override
  public int priority() {
    return -100;
  }

  @Override
  public EventPlane open(EventPlaneSettings settings) {
    return InMemoryEventPlane.create();
  }
}
