package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlaneCodec;
import dev.kvrelay.spi.eventplane.EventPlaneContract;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ZmqFrames;
import java.util.List;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Not thread-safe: confined to the test thread. A worker-side publisher on jeromq for the contract tests: a PUB
 * socket bound to a free loopback port (direct mode) or connected to a broker's XSUB (broker mode), sending the
 * SPI's 4 frames ({@link ZmqFrames#encode}).
 */
final class JeromqPublisher implements EventPlaneContract.ContractPublisher {
  private final ZContext context = new ZContext(1);
  private final ZMQ.Socket pub;
  private final String topic;
  private final String frame0;
  private final long publisherId;
  private final String endpoint;
  private long sequence;

  private JeromqPublisher(String topic, String frame0, long publisherId, String connectTo) {
    this.topic = topic;
    this.frame0 = frame0;
    this.publisherId = publisherId;
    pub = context.createSocket(SocketType.PUB);
    pub.setLinger(0);
    // The test peers retry a stalled ZMTP handshake as the plane does (jeromq 0.6.0 occasionally stalls one).
    pub.setHandshakeIvl(ZmqSubscription.HANDSHAKE_IVL_MS);
    pub.setReconnectIVL(ZmqSubscription.RECONNECT_IVL_MS);
    pub.setSndHWM(100_000);
    if (connectTo.isEmpty()) {
      int port = pub.bindToRandomPort("tcp://127.0.0.1");
      endpoint = "tcp://127.0.0.1:" + port;
    } else {
      pub.connect(connectTo);
      endpoint = connectTo;
    }
  }

  /** A direct-mode publisher bound to a free port. */
  static JeromqPublisher direct(String topic, long publisherId) {
    return new JeromqPublisher(topic, topic, publisherId, "");
  }

  /** A broker-mode publisher connected to {@code xsub}; frame 0 is the full subject. */
  static JeromqPublisher brokered(EventScope scope, String topic, long publisherId, String xsub) {
    return new JeromqPublisher(topic, scope.subject(topic), publisherId, xsub);
  }

  /** Also connects to {@code xsub}: a publisher of several HA brokers, which each forward every message. */
  JeromqPublisher alsoConnect(String xsub) {
    pub.connect(xsub);
    return this;
  }

  @Override
  public long publisherId() {
    return publisherId;
  }

  @Override
  public ChannelLocator channel() {
    return new ChannelLocator.Zmq(publisherId, endpoint);
  }

  @Override
  public EventEnvelope publish(RouterEvent event) {
    return send(EventPlaneCodec.encodeRouterEvent(event));
  }

  @Override
  public EventEnvelope publish(ActiveLoad load) {
    return send(EventPlaneCodec.encodeActiveLoad(load));
  }

  private EventEnvelope send(byte[] payload) {
    EventEnvelope env = new EventEnvelope(publisherId, sequence++, System.currentTimeMillis(), topic);
    sendFrames(ZmqFrames.encode(frame0, env, EventPlaneCodec.encodeEnvelope(env, payload)));
    return env;
  }

  /**
   * Sends {@code event} as message {@code sequence} of another publisher id, on this socket: many publishers without
   * a socket each (broker mode, where any id is accepted). This publisher's own sequence does not move.
   */
  void publishAs(long otherPublisherId, long sequence, RouterEvent event) {
    EventEnvelope env = new EventEnvelope(otherPublisherId, sequence, System.currentTimeMillis(), topic);
    sendFrames(ZmqFrames.encode(frame0, env,
        EventPlaneCodec.encodeEnvelope(env, EventPlaneCodec.encodeRouterEvent(event))));
  }

  @Override
  public void publishUndecodable() {
    EventEnvelope env = new EventEnvelope(publisherId, sequence++, System.currentTimeMillis(), topic);
    sendFrames(ZmqFrames.encode(frame0, env, new byte[] {(byte) 0xc1, 0x00}));
  }

  private void sendFrames(List<byte[]> frames) {
    for (int i = 0; i < frames.size(); i++) {
      pub.send(frames.get(i), i < frames.size() - 1 ? ZMQ.SNDMORE : 0);
    }
  }

  @Override
  public void close() {
    context.close();
  }
}
