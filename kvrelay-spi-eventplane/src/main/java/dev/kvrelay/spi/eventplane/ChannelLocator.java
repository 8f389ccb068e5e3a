package dev.kvrelay.spi.eventplane;

import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: where one publisher's messages can be received (the transport of a discovery
 * {@code EventChannel}, runtime-inputs.md §1.2). A ZMQ subscription connects to it; planes whose
 * subscriptions see every publisher of a subject (NATS) ignore it.
 */
public sealed interface ChannelLocator
    permits ChannelLocator.Zmq, ChannelLocator.ZmqBroker, ChannelLocator.Nats, ChannelLocator.InMemory {

  /**
   * Immutable and thread-safe: a publisher's ZMQ PUB endpoint ({@code {"kind":"Zmq","config":{"endpoint"}}}).
   *
   * @param publisherId the publisher id (the EventChannel's {@code instance_id}); frame 1 must equal it
   * @param endpoint e.g. {@code tcp://10.1.2.3:41877}
   */
  record Zmq(long publisherId, String endpoint) implements ChannelLocator {
    /** Requires an endpoint. */
    public Zmq {
      Objects.requireNonNull(endpoint, "endpoint");
    }
  }

  /**
   * Immutable and thread-safe: a ZMQ broker ({@code ZmqBroker}; subscribers connect to the XPUB side).
   *
   * @param xsubEndpoints the broker's XSUB endpoints
   * @param xpubEndpoints the broker's XPUB endpoints
   */
  record ZmqBroker(List<String> xsubEndpoints, List<String> xpubEndpoints) implements ChannelLocator {
    /** Copies the lists. */
    public ZmqBroker {
      xsubEndpoints = List.copyOf(xsubEndpoints);
      xpubEndpoints = List.copyOf(xpubEndpoints);
    }
  }

  /**
   * Immutable and thread-safe: a NATS channel ({@code {"kind":"Nats","config":{"subject_prefix"}}}).
   *
   * @param subjectPrefix e.g. {@code namespace.dynamo.component.backend}
   */
  record Nats(String subjectPrefix) implements ChannelLocator {
    /** Requires a prefix. */
    public Nats {
      Objects.requireNonNull(subjectPrefix, "subjectPrefix");
    }
  }

  /**
   * Immutable and thread-safe: a publisher of an {@link InMemoryEventPlane}.
   *
   * @param publisherId the publisher id
   */
  record InMemory(long publisherId) implements ChannelLocator {}
}
