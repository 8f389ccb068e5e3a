package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A pool start that fails (here: the event plane refuses the subscription) is retried with backoff (producer.md §2.6). */
@Timeout(30)
class PoolStartRetryTest {

  /** Thread-safe: refuses the next {@code refusals} subscriptions, then delegates (set it to 0 to stop refusing). */
  static final class RefusingPlane implements EventPlane {
    final InMemoryEventPlane delegate = InMemoryEventPlane.create();
    final AtomicInteger refusals;

    RefusingPlane(int refusals) {
      this.refusals = new AtomicInteger(refusals);
    }

    @Override
    public EventSubscription subscribe(EventScope scope, String topic, EventListener listener) throws EventPlaneException {
      if (refusals.getAndDecrement() > 0) {
        throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE, "transport not ready");
      }
      return delegate.subscribe(scope, topic, listener);
    }

    @Override
    public boolean connectsToChannels() {
      return false;
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  void failedStartIsCountedAndRetriedUntilThePoolStarts() throws Exception {
    InMemoryDiscovery discovery = new InMemoryDiscovery();
    RefusingPlane plane = new RefusingPlane(3);
    InMemoryRequestPlane requests = new InMemoryRequestPlane();
    try (RelayEngine engine = RelayEngine.builder().config(RelayHarness.defaultConfig("dc-a")).discovery(discovery)
        .eventPlane(plane).requestPlane(requests).build()) {
      SimWorker w = new SimWorker(discovery, plane.delegate, requests, RelayHarness.ep("ns/backend/generate"), 7,
          card("llama", "aggregated", null, 0, 1), 0, 1, true, null, 16, null).start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (engine.catalog().pools().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(engine.catalog().pools()).hasSize(1);
      KvPoolDescriptor d = engine.catalog().pools().get(0);
      RelayEngineStats s = engine.stats();
      assertThat(s.poolStartFailures()).as("three refused subscriptions, one per attempt").isEqualTo(3);
      assertThat(s.poolStarts()).isEqualTo(1);
      assertThat(d.producer().layoutGeneration()).as("every attempt reserves a layout generation").isEqualTo(4);
      assertThat(w.publisherIds()).hasSize(1);
    } finally {
      requests.close();
      plane.close();
      discovery.close();
    }
  }
}
