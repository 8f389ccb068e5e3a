package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.discovery.ChannelTransport;
import dev.kvrelay.spi.discovery.EventChannelKey;
import dev.kvrelay.spi.discovery.EventChannelRecord;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a plane whose subscriptions connect to each publisher (ZMQ direct mode), the engine connects the pool's
 * subscriptions to the EventChannels discovery advertises for their scope and topic, and disconnects removed ones.
 */
@Timeout(30)
class EventChannelWiringTest {

  /** Thread-safe: an in-memory plane that says it connects to channels and records every connect/disconnect. */
  static final class RecordingPlane implements EventPlane {
    final InMemoryEventPlane delegate = InMemoryEventPlane.create();
    final List<String> log = new CopyOnWriteArrayList<>();

    @Override
    public EventSubscription subscribe(EventScope scope, String topic, EventListener listener) throws EventPlaneException {
      EventSubscription inner = delegate.subscribe(scope, topic, listener);
      return new EventSubscription() {
        @Override
        public EventScope scope() {
          return inner.scope();
        }

        @Override
        public String topic() {
          return inner.topic();
        }

        @Override
        public void connect(ChannelLocator channel) {
          log.add("connect " + topic + " " + channel);
        }

        @Override
        public void disconnect(ChannelLocator channel) {
          log.add("disconnect " + topic + " " + channel);
        }

        @Override
        public void close() {
          inner.close();
        }
      };
    }

    @Override
    public boolean connectsToChannels() {
      return true;
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  void poolSubscriptionsFollowTheAdvertisedChannels() throws Exception {
    InMemoryDiscovery discovery = new InMemoryDiscovery();
    RecordingPlane plane = new RecordingPlane();
    InMemoryRequestPlane requests = new InMemoryRequestPlane();
    try (RelayEngine engine = RelayEngine.builder().config(RelayHarness.defaultConfig("dc-a")).discovery(discovery)
        .eventPlane(plane).requestPlane(requests).poolThreads(1).build()) {
      SimWorker w = new SimWorker(discovery, plane.delegate, requests, RelayHarness.ep("ns/backend/generate"), 7,
          card("llama", "aggregated", null, 0, 1), 0, 1, true, null, 16, null).start();
      long publisher = w.publisherIds().get(0);
      EventScope scope = new EventScope.Endpoint(RelayHarness.ep("ns/backend/generate"));
      EventChannelRecord events = new EventChannelRecord(new EventChannelKey(scope, EventTopics.KV_EVENTS, publisher),
          new ChannelTransport.Zmq("tcp://10.0.0.7:5557"));
      EventChannelRecord metrics = new EventChannelRecord(new EventChannelKey(scope, EventTopics.KV_METRICS, 99),
          new ChannelTransport.Nats("namespace.ns.component.backend"));
      discovery.put(events);
      discovery.put(metrics);
      String connectEvents = "connect kv-events " + new ChannelLocator.Zmq(publisher, "tcp://10.0.0.7:5557");
      String connectMetrics = "connect kv_metrics " + new ChannelLocator.Nats("namespace.ns.component.backend");
      awaitLog(plane, connectEvents);
      awaitLog(plane, connectMetrics);
      discovery.remove(events.key());
      awaitLog(plane, "dis" + connectEvents);
      assertThat(plane.log).containsOnlyOnce(connectEvents, connectMetrics);
      assertThat(engine.stats().channelErrors()).isZero();
    } finally {
      requests.close();
      plane.close();
      discovery.close();
    }
  }

  private static void awaitLog(RecordingPlane plane, String line) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!plane.log.contains(line)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never logged: " + line + "; log " + plane.log);
      }
      Thread.sleep(2);
    }
  }
}
