package dev.kvrelay.spi.eventplane;

import java.util.Map;
import java.util.Objects;

/**
 * Thread-safe (stateless): the {@code mem} request-plane provider; every {@link #open} returns a new, empty
 * {@link InMemoryRequestPlane}. Its priority is the lowest so that a real transport on the class path wins
 * {@link dev.kvrelay.api.plugin.PluginRegistry#best()}.
 */
public final class InMemoryRequestPlaneProvider implements RequestPlaneProvider {
  /** The provider name. */
  public static final String NAME = "mem";

  /** For {@link java.util.ServiceLoader}. */
  public InMemoryRequestPlaneProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return Objects.requireNonNull(RequestPlaneProviders.KNOWN_ARTIFACTS.get(NAME), NAME);
  }

  @Override
  public int priority() {
    return -100;
  }

  @Override
  public RequestPlaneClient open(Map<String, String> properties) {
    return new InMemoryRequestPlane();
  }
}
