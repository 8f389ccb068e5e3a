package dev.kvrelay.benchmarks;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlaneCodec;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ZmqFrames;
import io.nats.client.Connection;
import io.nats.client.Options;
import java.time.Duration;
import java.util.List;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Not thread-safe: confined to the one publishing thread. The simulated worker's side of an event plane: it
 * msgpack-encodes each {@code kv-events} {@link RouterEvent} in its envelope with the SPI's {@link EventPlaneCodec}
 * (the bytes the plugins' own tests publish) and sends it with the next sequence of its publisher id, on the
 * in-memory plane, on a jeromq PUB socket it owns (the 4 frames of {@link ZmqFrames#encode}, direct mode), or with
 * jnats on the plane's subject ({@link EventScope#subject}).
 */
sealed interface WorkerPublisher extends AutoCloseable {
  /** Encodes and sends {@code event} with the next sequence. */
  void publish(RouterEvent event);

  /**
   * Sends {@code event} with sequence 0 and makes the next {@link #publish} use sequence 1: the subscription-start
   * probe, resent until heard (the in-memory plane has no late join: it publishes normally).
   */
  default void publishProbe(RouterEvent event) {
    publish(event);
  }

  /** The ZMQ endpoint the PUB socket is bound to; empty for the other planes. */
  default String endpoint() {
    return "";
  }

  @Override
  void close();

  /** Not thread-safe (confined as above): the in-memory plane's own publisher, which encodes with the same codec. */
  record Memory(InMemoryEventPlane.Publisher publisher) implements WorkerPublisher {
    @Override
    public void publish(RouterEvent event) {
      publisher.publish(event);
    }

    @Override
    public void close() {}
  }

  /** Not thread-safe: a jeromq PUB socket bound to a free loopback port, frame 0 the topic (direct mode). */
  final class Zmq implements WorkerPublisher {
    private final ZContext context = new ZContext(1);
    private final ZMQ.Socket pub;
    private final long publisherId;
    private final String endpoint;
    private long sequence;

    Zmq(long publisherId) {
      this.publisherId = publisherId;
      pub = context.createSocket(SocketType.PUB);
      pub.setLinger(0);
      pub.setSndHWM(100_000); // PUB drops silently past its HWM: the SUB then counts a sequence gap
      endpoint = "tcp://127.0.0.1:" + pub.bindToRandomPort("tcp://127.0.0.1");
    }

    @Override
    public void publishProbe(RouterEvent event) {
      sequence = 0;
      publish(event);
    }

    @Override
    public void publish(RouterEvent event) {
      EventEnvelope env = new EventEnvelope(publisherId, sequence++, System.currentTimeMillis(), EventTopics.KV_EVENTS);
      List<byte[]> frames = ZmqFrames.encode(EventTopics.KV_EVENTS, env,
          EventPlaneCodec.encodeEnvelope(env, EventPlaneCodec.encodeRouterEvent(event)));
      for (int i = 0; i < frames.size(); i++) {
        pub.send(frames.get(i), i < frames.size() - 1 ? ZMQ.SNDMORE : 0);
      }
    }

    @Override
    public String endpoint() {
      return endpoint;
    }

    @Override
    public void close() {
      context.close();
    }
  }

  /** Not thread-safe: a jnats connection of its own publishing on {@code scope.subject("kv-events")}. */
  final class Nats implements WorkerPublisher {
    private final Connection connection;
    private final String subject;
    private final long publisherId;
    private long sequence;

    Nats(String url, EventScope scope, long publisherId) throws Exception {
      this.connection = io.nats.client.Nats.connect(new Options.Builder().server(url)
          .connectionName("bench-worker").build());
      this.subject = scope.subject(EventTopics.KV_EVENTS);
      this.publisherId = publisherId;
    }

    @Override
    public void publishProbe(RouterEvent event) {
      sequence = 0;
      publish(event);
    }

    @Override
    public void publish(RouterEvent event) {
      EventEnvelope env = new EventEnvelope(publisherId, sequence++, System.currentTimeMillis(), EventTopics.KV_EVENTS);
      connection.publish(subject, EventPlaneCodec.encodeEnvelope(env, EventPlaneCodec.encodeRouterEvent(event)));
    }

    @Override
    public void close() {
      try {
        connection.flush(Duration.ofSeconds(5));
        connection.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (java.util.concurrent.TimeoutException e) {
        System.err.println("# bench worker: NATS flush at close timed out (after the measurement): " + e);
      }
    }
  }
}
