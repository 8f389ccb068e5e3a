package dev.kvrelay.eventplane.zmq;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Thread-safe (its sockets are confined to its proxy thread after start): an XSUB/XPUB forwarder on jeromq,
 * bound to free loopback ports, as a {@code zmq_broker} runs it. {@link #close()} ends the proxy.
 */
final class JeromqBroker implements AutoCloseable {
  private final ZContext context = new ZContext(1);
  private final String xsub;
  private final String xpub;
  private final Thread thread;

  JeromqBroker() {
    ZMQ.Socket in = context.createSocket(SocketType.XSUB);
    ZMQ.Socket out = context.createSocket(SocketType.XPUB);
    in.setLinger(0);
    out.setLinger(0);
    // Stalled handshakes (jeromq 0.6.0) are dropped so that the connecting side retries, as the plane does.
    in.setHandshakeIvl(ZmqSubscription.HANDSHAKE_IVL_MS);
    out.setHandshakeIvl(ZmqSubscription.HANDSHAKE_IVL_MS);
    in.setRcvHWM(100_000);
    out.setSndHWM(100_000);
    xsub = "tcp://127.0.0.1:" + in.bindToRandomPort("tcp://127.0.0.1");
    xpub = "tcp://127.0.0.1:" + out.bindToRandomPort("tcp://127.0.0.1");
    thread = new Thread(() -> {
      try {
        ZMQ.proxy(in, out, null);
      } catch (RuntimeException e) {
        // the context was closed: the proxy ends
      }
    }, "jeromq-broker");
    thread.setDaemon(true);
    thread.start();
  }

  /** Where publishers connect. */
  String xsub() {
    return xsub;
  }

  /** Where subscribers connect. */
  String xpub() {
    return xpub;
  }

  @Override
  public void close() throws InterruptedException {
    context.close();
    thread.join(5_000);
  }
}
