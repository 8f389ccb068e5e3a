/**
 * The NATS core event plane (provider name {@code nats}, plugins-wire §6): subscribes to the
 * {@code kv-events} and {@code kv_metrics} subjects of a scope on a jnats connection configured from
 * {@code NATS_SERVER} and {@code NATS_AUTH_*}, and reports disconnects, reconnects, slow-consumer drops, new
 * publishers, sequence gaps and regressions to the listener.
 */
module dev.kvrelay.eventplane.nats {
  requires static transitive org.jspecify;
  requires transitive dev.kvrelay.spi.eventplane;
  requires io.nats.jnats;
  requires org.slf4j;

  exports dev.kvrelay.eventplane.nats;

  provides dev.kvrelay.spi.eventplane.EventPlaneProvider
      with dev.kvrelay.eventplane.nats.NatsEventPlaneProvider;
}
