package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Fault injection of the in-memory plane: drops leave sequence gaps, duplicates repeat, holds reorder. */
class InMemoryEventPlaneFaultsTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("ns", "comp", "ep"));

  /** Thread-safe: collects delivered envelopes' sequences and event ids. */
  static final class Sink implements EventListener {
    final LinkedBlockingQueue<long[]> seen = new LinkedBlockingQueue<>();

    @Override
    public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
      seen.add(new long[] {envelope.sequence(), event.eventId()});
    }

    @Override
    public void onLoad(EventEnvelope envelope, ActiveLoad load) {}

    @Override
    public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
      seen.add(new long[] {-1, -1});
    }

    List<Long> sequences(int n) throws InterruptedException {
      List<Long> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        long[] x = seen.poll(5, TimeUnit.SECONDS);
        assertThat(x).isNotNull();
        out.add(x[0]);
      }
      assertThat(seen.poll(100, TimeUnit.MILLISECONDS)).as("nothing more").isNull();
      return out;
    }
  }

  static RouterEvent ev(long id) {
    return new RouterEvent(1, StorageTier.DEVICE, ResidencyDomain.WORKER, id, 0, KvEventData.Cleared.INSTANCE);
  }

  @Test
  void dropDuplicateAndReorder() throws Exception {
    try (InMemoryEventPlane plane = InMemoryEventPlane.create(false, () -> 1_700_000_000_000L)) {
      Sink sink = new Sink();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, sink);
      InMemoryEventPlane.Publisher p = plane.publisher(SCOPE, EventTopics.KV_EVENTS, 9);
      p.publish(ev(0));
      PublisherFaults.dropNext(p, 2);
      p.publish(ev(1));
      p.publish(ev(2));
      p.publish(ev(3));
      PublisherFaults.duplicateNext(p, 1);
      p.publish(ev(4));
      PublisherFaults.holdNext(p, 2);
      p.publish(ev(5));
      p.publish(ev(6));
      p.publish(ev(7));
      PublisherFaults.releaseHeld(p);
      assertThat(sink.sequences(7)).containsExactly(0L, 3L, 4L, 4L, 7L, 5L, 6L);
      assertThat(p.nextSequence()).isEqualTo(8);
    }
  }

  @Test
  void publishedAtComesFromTheClock() throws Exception {
    try (InMemoryEventPlane plane = InMemoryEventPlane.create(false, () -> 42L)) {
      assertThat(plane.publisher(SCOPE, EventTopics.KV_EVENTS, 9).publish(ev(0)).publishedAtMs()).isEqualTo(42);
    }
  }

  @Test
  void undecodablePayloadIsReportedWithThePublisher() throws Exception {
    try (InMemoryEventPlane plane = InMemoryEventPlane.create()) {
      LinkedBlockingQueue<Object[]> errors = new LinkedBlockingQueue<>();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, new EventListener() {
        @Override
        public void onKvEvent(EventEnvelope envelope, RouterEvent event) {}

        @Override
        public void onLoad(EventEnvelope envelope, ActiveLoad load) {}

        @Override
        public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
          errors.add(new Object[] {error, publisherId});
        }
      });
      plane.publisher(SCOPE, EventTopics.KV_EVENTS, 31).publishPayload(new byte[] {(byte) 0x80});
      Object[] e = errors.poll(5, TimeUnit.SECONDS);
      assertThat(e).isNotNull();
      assertThat(((EventDecodeException) e[0]).reason()).isEqualTo(EventDecodeException.Reason.MISSING_FIELD);
      assertThat(((EventDecodeException) e[0]).field()).isEqualTo("payload.worker_id");
      assertThat(e[1]).isEqualTo(OptionalLong.of(31));
    }
  }

  @Test
  void aListenerMayCloseItsOwnSubscription() throws Exception {
    try (InMemoryEventPlane plane = InMemoryEventPlane.create()) {
      LinkedBlockingQueue<Long> got = new LinkedBlockingQueue<>();
      EventSubscription[] self = new EventSubscription[1];
      self[0] = plane.subscribe(SCOPE, EventTopics.KV_EVENTS, new EventListener() {
        @Override
        public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
          got.add(event.eventId());
          self[0].close();
        }

        @Override
        public void onLoad(EventEnvelope envelope, ActiveLoad load) {}

        @Override
        public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {}
      });
      InMemoryEventPlane.Publisher p = plane.publisher(SCOPE, EventTopics.KV_EVENTS, 9);
      p.publish(ev(1));
      assertThat(got.poll(5, TimeUnit.SECONDS)).isEqualTo(1L);
      p.publish(ev(2));
      assertThat(got.poll(200, TimeUnit.MILLISECONDS)).as("closed from its own callback").isNull();
    }
  }
}
