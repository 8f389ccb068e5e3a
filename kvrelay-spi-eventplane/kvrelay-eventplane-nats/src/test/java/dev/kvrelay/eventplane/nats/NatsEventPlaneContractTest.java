package dev.kvrelay.eventplane.nats;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneCodec;
import dev.kvrelay.spi.eventplane.EventPlaneContract;
import dev.kvrelay.spi.eventplane.RouterEvent;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SPI's event-plane contract against {@link NatsEventPlane} on a real nats-server; the contract's
 * publishers are separate jnats connections publishing codec-encoded envelopes on the scope's subject.
 */
class NatsEventPlaneContractTest extends EventPlaneContract {
  @TempDir static Path dir;
  static NatsServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = NatsServer.start(dir);
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected EventPlane openPlane() throws Exception {
    return NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH));
  }

  @Override
  protected ContractPublisher openPublisher(EventPlane plane, EventScope scope, String topic, long publisherId)
      throws Exception {
    return new JnatsPublisher(server.url(), scope, topic, publisherId);
  }

  /** Not thread-safe: a worker-like publisher on its own jnats connection; sequences from 0. */
  static final class JnatsPublisher implements ContractPublisher {
    private final Connection connection;
    private final EventScope scope;
    private final String topic;
    private final String subject;
    private final long publisherId;
    private long nextSequence;

    JnatsPublisher(String url, EventScope scope, String topic, long publisherId) throws Exception {
      this.connection = Nats.connect(new Options.Builder().server(url).build());
      this.scope = scope;
      this.topic = topic;
      this.subject = scope.subject(topic);
      this.publisherId = publisherId;
    }

    @Override
    public long publisherId() {
      return publisherId;
    }

    @Override
    public ChannelLocator channel() {
      return new ChannelLocator.Nats(scope.subjectPrefix());
    }

    @Override
    public EventEnvelope publish(RouterEvent event) throws Exception {
      return send(EventPlaneCodec.encodeRouterEvent(event));
    }

    @Override
    public EventEnvelope publish(ActiveLoad load) throws Exception {
      return send(EventPlaneCodec.encodeActiveLoad(load));
    }

    private EventEnvelope send(byte[] payload) throws Exception {
      EventEnvelope env = new EventEnvelope(publisherId, nextSequence++, System.currentTimeMillis(), topic);
      connection.publish(subject, EventPlaneCodec.encodeEnvelope(env, payload));
      connection.flush(Duration.ofSeconds(5));
      return env;
    }

    @Override
    public void publishUndecodable() throws Exception {
      connection.publish(subject, new byte[] {(byte) 0x85, (byte) 0xC1, 0, 0, 0});
      connection.flush(Duration.ofSeconds(5));
    }

    @Override
    public void close() throws Exception {
      connection.close();
    }
  }
}
