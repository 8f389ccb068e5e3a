package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.RequestPlaneProvider;
import dev.kvrelay.spi.eventplane.RequestPlaneProviders;
import java.util.Map;
import java.util.Objects;

/**
 * Thread-safe (stateless): the {@code tcp} request-plane provider ({@code DYN_REQUEST_PLANE=tcp}); each
 * {@link #open} starts a {@link TcpRequestPlaneClient} configured by {@link TcpRequestPlaneConfig#fromProperties}.
 */
public final class TcpRequestPlaneProvider implements RequestPlaneProvider {
  /** The provider name. */
  public static final String NAME = "tcp";

  /** For {@link java.util.ServiceLoader}. */
  public TcpRequestPlaneProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return Objects.requireNonNull(RequestPlaneProviders.KNOWN_ARTIFACTS.get(NAME), NAME);
  }

  @Override
  public RequestPlaneClient open(Map<String, String> properties) throws RequestPlaneException {
    return TcpRequestPlaneClient.open(TcpRequestPlaneConfig.fromProperties(properties));
  }
}
