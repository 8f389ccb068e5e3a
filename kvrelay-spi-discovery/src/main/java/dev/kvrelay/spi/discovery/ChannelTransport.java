package dev.kvrelay.spi.discovery;

import java.util.List;

/**
 * Immutable and thread-safe: where an event publisher's events can be read ({@code runtime-inputs.md} §1.2
 * EventChannel {@code transport}, adjacently tagged {@code {"kind": "Nats"|"Zmq"|"ZmqBroker", "config": …}}).
 */
public sealed interface ChannelTransport permits ChannelTransport.Nats, ChannelTransport.Zmq, ChannelTransport.ZmqBroker {

  /** The {@code kind} tag. */
  String kindTag();

  /**
   * Immutable and thread-safe: NATS core; {@code config.subject_prefix} is the scope subject prefix.
   *
   * @param subjectPrefix e.g. {@code namespace.dynamo.component.backend}
   */
  record Nats(String subjectPrefix) implements ChannelTransport {
    @Override
    public String kindTag() {
      return "Nats";
    }
  }

  /**
   * Immutable and thread-safe: a ZMQ PUB socket to SUB-connect to.
   *
   * @param endpoint e.g. {@code tcp://10.1.2.3:41877}
   */
  record Zmq(String endpoint) implements ChannelTransport {
    @Override
    public String kindTag() {
      return "Zmq";
    }
  }

  /**
   * Immutable and thread-safe: a ZMQ broker (XSUB / XPUB endpoints).
   *
   * @param xsubEndpoints {@code config.xsub_endpoints}
   * @param xpubEndpoints {@code config.xpub_endpoints}
   */
  record ZmqBroker(List<String> xsubEndpoints, List<String> xpubEndpoints) implements ChannelTransport {
    /** Copies the lists. */
    public ZmqBroker {
      xsubEndpoints = List.copyOf(xsubEndpoints);
      xpubEndpoints = List.copyOf(xpubEndpoints);
    }

    @Override
    public String kindTag() {
      return "ZmqBroker";
    }
  }
}
