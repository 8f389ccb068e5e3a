package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.EventScope;

/** The event-plane contract against the in-memory plane that needs connected channels (ZMQ-like). */
class InMemoryChannelledEventPlaneContractTest extends EventPlaneContract {

  @Override
  protected EventPlane openPlane() {
    return InMemoryEventPlane.withChannels();
  }

  @Override
  protected ContractPublisher openPublisher(EventPlane plane, EventScope scope, String topic, long publisherId) {
    return new InMemoryEventPlaneContractTest.InMemoryContractPublisher(
        ((InMemoryEventPlane) plane).publisher(scope, topic, publisherId));
  }
}
