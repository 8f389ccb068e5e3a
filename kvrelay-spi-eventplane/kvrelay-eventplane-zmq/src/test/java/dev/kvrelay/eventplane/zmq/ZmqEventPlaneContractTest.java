package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneContract;

/** The SPI's event-plane contract against the ZMQ plane in direct mode, publishers on jeromq PUB sockets. */
class ZmqEventPlaneContractTest extends EventPlaneContract {

  @Override
  protected EventPlane openPlane() {
    return ZmqEventPlane.open(ZmqSettings.direct(1));
  }

  @Override
  protected ContractPublisher openPublisher(EventPlane plane, EventScope scope, String topic, long publisherId) {
    return JeromqPublisher.direct(topic, publisherId);
  }
}
