/**
 * The TCP request plane ({@code DYN_REQUEST_PLANE=tcp}, plugins-wire §1, §3): a {@code RequestPlaneClient}
 * that sends recovery queries to workers and receives their call-home response streams, and a request
 * server for the relay's own runtime endpoints. Found through {@link java.util.ServiceLoader} as the
 * {@code tcp} {@code RequestPlaneProvider}.
 */
module dev.kvrelay.requestplane.tcp {
  requires static transitive org.jspecify;
  requires transitive dev.kvrelay.spi.eventplane;
  requires org.slf4j;

  exports dev.kvrelay.requestplane.tcp;

  provides dev.kvrelay.spi.eventplane.RequestPlaneProvider
      with dev.kvrelay.requestplane.tcp.TcpRequestPlaneProvider;
}
