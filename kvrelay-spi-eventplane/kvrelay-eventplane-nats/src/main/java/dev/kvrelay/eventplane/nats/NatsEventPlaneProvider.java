package dev.kvrelay.eventplane.nats;

import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneProvider;
import dev.kvrelay.spi.eventplane.EventPlaneProviders;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import java.util.Objects;

/**
 * Thread-safe (stateless): the {@code nats} event-plane provider ({@code DYN_EVENT_PLANE=nats},
 * runtime-inputs §5.1); {@link #open} reads {@code NATS_SERVER} and {@code NATS_AUTH_*}
 * ({@link NatsSettings#from}) and connects.
 */
public final class NatsEventPlaneProvider implements EventPlaneProvider {
  /** The provider name. */
  public static final String NAME = "nats";

  /** For {@link java.util.ServiceLoader}. */
  public NatsEventPlaneProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return Objects.requireNonNull(EventPlaneProviders.KNOWN_ARTIFACTS.get(NAME), NAME);
  }

  @Override
  public EventPlane open(EventPlaneSettings settings) throws EventPlaneException {
    return NatsEventPlane.open(NatsSettings.from(settings));
  }
}
