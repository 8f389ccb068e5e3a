package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneProvider;
import dev.kvrelay.spi.eventplane.EventPlaneProviders;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import java.util.Objects;

/**
 * Thread-safe (stateless): the {@code zmq} event-plane provider, upstream's default transport (runtime-inputs
 * §5.1); {@link #open} reads {@link ZmqSettings#from} and returns a new {@link ZmqEventPlane}.
 */
public final class ZmqEventPlaneProvider implements EventPlaneProvider {
  /** The provider name. */
  public static final String NAME = "zmq";

  /** For {@link java.util.ServiceLoader}. */
  public ZmqEventPlaneProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return Objects.requireNonNull(EventPlaneProviders.KNOWN_ARTIFACTS.get(NAME), NAME);
  }

  /** Above the other planes: {@code zmq} is the default when {@code DYN_EVENT_PLANE} is unset. */
  @Override
  public int priority() {
    return 10;
  }

  @Override
  public EventPlane open(EventPlaneSettings settings) throws EventPlaneException {
    return ZmqEventPlane.open(ZmqSettings.from(settings));
  }
}
