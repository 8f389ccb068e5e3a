package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneContract;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * The SPI's event-plane contract against the ZMQ plane in broker mode ({@code DYN_ZMQ_BROKER_URL}): publishers
 * connect to a jeromq XSUB/XPUB forwarder, the plane to its XPUB side, frame 0 and the filter are full subjects.
 */
class ZmqBrokerEventPlaneContractTest extends EventPlaneContract {
  private final JeromqBroker broker = new JeromqBroker();

  @AfterEach
  void stopBroker() throws InterruptedException {
    broker.close();
  }

  @Override
  protected EventPlane openPlane() {
    return ZmqEventPlane.open(ZmqSettings.broker(1, List.of(broker.xsub()), List.of(broker.xpub())));
  }

  @Override
  protected ContractPublisher openPublisher(EventPlane plane, EventScope scope, String topic, long publisherId) {
    return JeromqPublisher.brokered(scope, topic, publisherId, broker.xsub());
  }
}
