/**
 * The ZMQ event plane (provider {@code zmq}) on jeromq: direct mode, where each subscription's SUB socket
 * connects to the PUB endpoints discovery advertises, and broker mode, where it connects to the XPUB side of
 * XSUB/XPUB brokers.
 */
module dev.kvrelay.eventplane.zmq {
  requires static org.jspecify;
  requires transitive dev.kvrelay.spi.eventplane;
  requires org.zeromq.jeromq;
  requires org.slf4j;

  exports dev.kvrelay.eventplane.zmq;

  provides dev.kvrelay.spi.eventplane.EventPlaneProvider
      with dev.kvrelay.eventplane.zmq.ZmqEventPlaneProvider;
}
