package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.RouterEvent;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 100 000-event burst (python3-msgpack's envelopes, published by jnats as fast as it can) through a real
 * nats-server into the plane with its default pending limits: every event arrives, exactly and in order,
 * with no fault; the rate from the first publish to the last delivery is printed (README numbers).
 */
class NatsBurstThroughputTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final int N = 100_000;

  @TempDir Path dir;

  /** Confined to the delivery thread (the count is read by the test thread). */
  static final class Sink implements EventListener {
    final EventEnvelope[] envelopes = new EventEnvelope[N];
    final RouterEvent[] events = new RouterEvent[N];
    final AtomicInteger count = new AtomicInteger();
    final AtomicInteger faults = new AtomicInteger();
    final AtomicInteger other = new AtomicInteger();
    final CountDownLatch gate;

    Sink(boolean held) {
      gate = new CountDownLatch(held ? 1 : 0);
    }

    @Override
    public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      int i = count.get();
      if (i < N) {
        envelopes[i] = envelope;
        events[i] = event;
      }
      count.lazySet(i + 1);
    }

    @Override
    public void onLoad(EventEnvelope envelope, ActiveLoad load) {
      other.incrementAndGet();
    }

    @Override
    public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
      other.incrementAndGet();
    }

    @Override
    public void onFault(EventPlaneFault fault) {
      if (fault.equals(new EventPlaneFault.NewPublisher(42, 0)) && count.get() == 0 && faults.getAndIncrement() == 0) {
        return; // the publisher's first message, reported right before it
      }
      other.incrementAndGet();
    }
  }

  @Test
  void aBurstOf100kEventsArrivesExactly() throws Exception {
    burst(false);
  }

  /**
   * The plane's own ingest rate: the burst waits in the subscription's pending queue (the listener is held
   * on its first event) and the time to drain it is decode, sequence check and delivery only.
   */
  @Test
  void aQueued100kBurstDrainsExactly() throws Exception {
    burst(true);
  }

  private void burst(boolean held) throws Exception {
    RawPublisher.requirePython();
    List<byte[]> bytes = RawPublisher.dump(EventTopics.KV_EVENTS, 42, 4242, 0, N);
    String subject = SCOPE.subject(EventTopics.KV_EVENTS);
    try (NatsServer server = NatsServer.start(dir);
        NatsEventPlane plane = NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH));
        Connection pub = Nats.connect(new Options.Builder().server(server.url()).build())) {
      Sink sink = new Sink(held);
      NatsEventSubscription sub = (NatsEventSubscription) plane.subscribe(SCOPE, EventTopics.KV_EVENTS, sink);
      long t0 = System.nanoTime();
      for (byte[] b : bytes) {
        pub.publish(subject, b);
      }
      pub.flush(Duration.ofSeconds(30));
      long published = System.nanoTime();
      if (held) {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (sub.transportPending() < N - 1) {
          assertThat(System.nanoTime()).as("burst queued at the client").isLessThan(until);
          Thread.sleep(1);
        }
        assertThat(sub.transportDropped()).isZero();
        t0 = System.nanoTime();
        sink.gate.countDown();
      }
      long deadline = t0 + Duration.ofSeconds(120).toNanos();
      while (sink.count.get() < N && sink.other.get() == 0) {
        assertThat(System.nanoTime()).as("burst delivered within 120 s; got %d", sink.count.get()).isLessThan(deadline);
        Thread.sleep(1);
      }
      long t1 = System.nanoTime();
      assertThat(sink.other.get()).as("no other fault, no decode error or load").isZero();
      assertThat(sink.faults.get()).as("the one NewPublisher").isEqualTo(1);
      assertThat(sink.count.get()).isEqualTo(N);
      for (int i = 0; i < N; i++) {
        assertThat(sink.envelopes[i]).isEqualTo(RawPublisher.envelope(EventTopics.KV_EVENTS, 42, i));
        assertThat(sink.events[i]).isEqualTo(RawPublisher.routerEvent(i, 4242));
      }
      assertThat(plane.stats().droppedMessages() + plane.stats().sequenceGaps()).isZero();
      double seconds = (t1 - t0) / 1e9;
      if (held) {
        System.out.printf("NATS queued burst: %d events drained by the plane in %.0f ms: %.0f events/s%n",
            N, seconds * 1e3, N / seconds);
      } else {
        System.out.printf("NATS burst: %d events (%d bytes) published in %.0f ms, delivered in %.0f ms: %.0f events/s%n",
            N, bytes.stream().mapToLong(b -> b.length).sum(), (published - t0) / 1e6, seconds * 1e3, N / seconds);
      }
    }
  }
}
