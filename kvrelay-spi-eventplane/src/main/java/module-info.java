/**
 * The event-plane SPI: the values the event plane carries (RouterEvents, load reports, envelopes), their
 * msgpack codec, ZMQ frame helpers, the provider interfaces (event plane, request plane) found through {@link java.util.ServiceLoader},
 * the recovery request-plane client interface, and the in-memory implementations of both planes. Scopes
 * and subjects are {@code dev.kvrelay.api.EventScope}.
 */
module dev.kvrelay.spi.eventplane {
  requires org.slf4j;
  requires static transitive org.jspecify;
  requires transitive dev.kvrelay.api;
  requires msgpack.core;

  exports dev.kvrelay.spi.eventplane;

  uses dev.kvrelay.spi.eventplane.EventPlaneProvider;
  uses dev.kvrelay.spi.eventplane.RequestPlaneProvider;

  provides dev.kvrelay.spi.eventplane.EventPlaneProvider
      with dev.kvrelay.spi.eventplane.InMemoryEventPlaneProvider;
  provides dev.kvrelay.spi.eventplane.RequestPlaneProvider
      with dev.kvrelay.spi.eventplane.InMemoryRequestPlaneProvider;
}
