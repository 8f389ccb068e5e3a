package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.EventScope;

/** The event-plane contract against the in-memory plane whose subscriptions ignore channels (NATS-like). */
class InMemoryEventPlaneContractTest extends EventPlaneContract {

  @Override
  protected EventPlane openPlane() {
    return InMemoryEventPlane.create();
  }

  @Override
  protected ContractPublisher openPublisher(EventPlane plane, EventScope scope, String topic, long publisherId) {
    return new InMemoryContractPublisher(((InMemoryEventPlane) plane).publisher(scope, topic, publisherId));
  }

  /** Not thread-safe: the contract's handle on an in-memory publisher. */
  static final class InMemoryContractPublisher implements ContractPublisher {
    private final InMemoryEventPlane.Publisher publisher;

    InMemoryContractPublisher(InMemoryEventPlane.Publisher publisher) {
      this.publisher = publisher;
    }

    @Override
    public long publisherId() {
      return publisher.publisherId();
    }

    @Override
    public ChannelLocator channel() {
      return publisher.channel();
    }

    @Override
    public EventEnvelope publish(RouterEvent event) {
      return publisher.publish(event);
    }

    @Override
    public EventEnvelope publish(ActiveLoad load) {
      return publisher.publish(load);
    }

    @Override
    public void publishUndecodable() {
      publisher.publishRaw(new byte[] {(byte) 0x85, (byte) 0xC1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    }

    @Override
    public void close() {}
  }
}
