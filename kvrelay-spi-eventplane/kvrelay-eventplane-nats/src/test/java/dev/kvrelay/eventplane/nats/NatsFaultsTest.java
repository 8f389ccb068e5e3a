package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventTopics;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Losses on a real nats-server are reported, counted and survived: the server killed and restarted
 * mid-stream (disconnect, reconnect, the publisher's sequence gap right before the first later message),
 * and a slow consumer over small pending limits (its drops, and gaps that account for exactly them). The
 * messages are python3-msgpack's bytes published by jnats.
 */
class NatsFaultsTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final String SUBJECT = SCOPE.subject(EventTopics.KV_EVENTS);
  static final long PUBLISHER = 31;
  static final long WORKER = 7;
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @BeforeAll
  static void tools() throws Exception {
    RawPublisher.requirePython();
    NatsServer.requireBinary();
  }

  private static Connection publisher(NatsServer server) throws Exception {
    return Nats.connect(new Options.Builder().server(server.url()).build());
  }

  private static void publish(Connection c, List<byte[]> bytes, int from, int to) throws Exception {
    for (int i = from; i < to; i++) {
      c.publish(SUBJECT, bytes.get(i));
    }
    c.flush(Duration.ofSeconds(10));
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  @Test
  void serverKilledMidStreamIsReportedAndDeliveryResumes() throws Exception {
    List<byte[]> bytes = RawPublisher.dump(EventTopics.KV_EVENTS, PUBLISHER, WORKER, 0, 2_000);
    List<byte[]> marker = RawPublisher.dump(EventTopics.KV_EVENTS, 999, 999, 0, 1);
    try (NatsServer server = NatsServer.start(dir);
        NatsEventPlane plane = NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH)
            .withReconnectWait(Duration.ofMillis(50), Duration.ofMillis(400)))) {
      Recording r = new Recording();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
      try (Connection before = publisher(server)) {
        publish(before, bytes, 0, 1_000);
      }
      r.awaitEvents(1_000, WAIT);

      server.kill();
      r.await("a Disconnected fault", WAIT, () -> r.faults().stream().anyMatch(f -> f instanceof EventPlaneFault.Disconnected));
      assertThat(plane.stats().connected()).isFalse();
      assertThat(plane.stats().disconnects()).isEqualTo(1);
      // Sequences 1000..1499 are published into the outage: lost.

      server.start();
      r.await("a Reconnected fault", WAIT, () -> r.faults().stream().anyMatch(f -> f instanceof EventPlaneFault.Reconnected));
      assertThat(plane.stats().reconnects()).isEqualTo(1);
      try (Connection after = publisher(server)) {
        // The re-sent subscription is live once another publisher's marker arrives.
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (r.count(c -> c instanceof Recording.Event e && e.envelope().publisherId() == 999) == 0) {
          assertThat(System.nanoTime()).as("marker after reconnect").isLessThan(deadline);
          publish(after, marker, 0, 1);
          Thread.sleep(20);
        }
        publish(after, bytes, 1_500, 2_000);
      }
      r.await("the later messages", WAIT, () -> r.count(c -> c instanceof Recording.Event e
          && e.envelope().publisherId() == PUBLISHER) == 1_500);

      List<Recording.Event> mine = r.events().stream().filter(e -> e.envelope().publisherId() == PUBLISHER).toList();
      for (int i = 0; i < mine.size(); i++) {
        long seq = i < 1_000 ? i : i + 500;
        assertThat(mine.get(i).envelope()).isEqualTo(RawPublisher.envelope(EventTopics.KV_EVENTS, PUBLISHER, seq));
        assertThat(mine.get(i).event()).isEqualTo(RawPublisher.routerEvent(seq, WORKER));
      }
      List<Recording.Call> calls = r.calls();
      int gapAt = -1;
      for (int i = 0; i < calls.size(); i++) {
        if (calls.get(i) instanceof Recording.Fault f && f.fault() instanceof EventPlaneFault.SequenceGap) {
          gapAt = i;
        }
      }
      assertThat(gapAt).as("a sequence gap was reported").isNotNegative();
      assertThat(((Recording.Fault) calls.get(gapAt)).fault())
          .isEqualTo(new EventPlaneFault.SequenceGap(PUBLISHER, 1_000, 1_500));
      assertThat(calls.get(gapAt + 1)).as("the gap comes right before the message revealing it")
          .isInstanceOfSatisfying(Recording.Event.class, e -> assertThat(e.envelope().sequence()).isEqualTo(1_500));
      List<EventPlaneFault> mineOrLink = r.faults().stream().filter(f -> !(f instanceof EventPlaneFault.SequenceFault sf)
          || sf.publisherId() == PUBLISHER).toList();
      assertThat(mineOrLink).extracting(f -> (Object) f.getClass()).containsExactly(
          EventPlaneFault.NewPublisher.class, EventPlaneFault.Disconnected.class, EventPlaneFault.Reconnected.class,
          EventPlaneFault.SequenceGap.class);
      assertThat(mineOrLink.get(0)).isEqualTo(new EventPlaneFault.NewPublisher(PUBLISHER, 0));
      NatsPlaneStats st = plane.stats();
      assertThat(st.connected()).isTrue();
      assertThat(st.sequenceGaps()).isEqualTo(1);
      assertThat(st.missingMessages()).isEqualTo(500);
      assertThat(st.disconnects()).isEqualTo(1);
      assertThat(st.reconnects()).isEqualTo(1);
      // the marker publisher: new once; each further marker repeats its sequence 0 (a regression each)
      assertThat(st.newPublishers()).isEqualTo(2);
      assertThat(st.faultsReported()).isEqualTo(5 + st.sequenceRegressions());
      assertThat(st.delivered()).isEqualTo(r.events().size());
    }
  }

  @Test
  void slowConsumerDropsAreReportedAndAccountedFor() throws Exception {
    int total = 1_000;
    List<byte[]> bytes = RawPublisher.dump(EventTopics.KV_EVENTS, PUBLISHER, WORKER, 0, total + 1);
    try (NatsServer server = NatsServer.start(dir);
        NatsEventPlane plane = NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH)
            .withPendingLimits(10, 64L << 20))) {
      Recording r = new Recording();
      r.holdNextEvent();
      NatsEventSubscription s = (NatsEventSubscription) plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
      try (Connection c = publisher(server)) {
        publish(c, bytes, 0, total);
        // One message is held in the listener; the rest either wait (≤ the limit) or were dropped.
        await("every message at the client", () -> s.transportDropped() + s.transportPending() == total - 1);
        assertThat(s.transportDropped()).isGreaterThanOrEqualTo(total - 1 - 11);
        r.release();
        r.await("the drops reported", WAIT, () -> plane.stats().droppedMessages() == s.transportDropped());
        publish(c, bytes, total, total + 1); // a last message reveals drops at the end of the burst
      }
      r.await("the last message", WAIT,
          () -> r.events().stream().anyMatch(e -> e.envelope().sequence() == total));
      List<Recording.Event> got = r.events();
      long dropped = plane.stats().droppedMessages();
      assertThat(got.size() + dropped).as("delivered + dropped = published").isEqualTo(total + 1);
      for (int i = 1; i < got.size(); i++) {
        assertThat(got.get(i).envelope().sequence()).isGreaterThan(got.get(i - 1).envelope().sequence());
      }
      for (Recording.Event e : got) {
        assertThat(e.event()).isEqualTo(RawPublisher.routerEvent(e.envelope().sequence(), WORKER));
      }
      long reportedDrops = r.faults().stream().filter(f -> f instanceof EventPlaneFault.MessagesDropped)
          .mapToLong(f -> ((EventPlaneFault.MessagesDropped) f).count()).sum();
      long missing = r.faults().stream().filter(f -> f instanceof EventPlaneFault.SequenceGap)
          .mapToLong(f -> ((EventPlaneFault.SequenceGap) f).missing()).sum();
      assertThat(reportedDrops).as("drops reported to the listener").isEqualTo(dropped);
      assertThat(missing).as("sequence gaps account for exactly the drops").isEqualTo(dropped);
      assertThat(plane.stats().missingMessages()).isEqualTo(dropped);
    }
  }

  @Test
  void aSilentlyFrozenServerIsDetectedByPingsAndReported() throws Exception {
    List<byte[]> bytes = RawPublisher.dump(EventTopics.KV_EVENTS, PUBLISHER, WORKER, 0, 20);
    try (NatsServer server = NatsServer.start(dir);
        NatsEventPlane plane = NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH)
            .withPingInterval(Duration.ofMillis(200))
            .withReconnectWait(Duration.ofMillis(50), Duration.ofMillis(200)))) {
      Recording r = new Recording();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
      try (Connection c = publisher(server)) {
        publish(c, bytes, 0, 10);
      }
      r.awaitEvents(10, WAIT);
      server.freeze(); // no TCP reset: only unanswered pings reveal it
      r.await("a Disconnected fault", WAIT,
          () -> r.faults().stream().anyMatch(f -> f instanceof EventPlaneFault.Disconnected));
      assertThat(plane.stats().disconnects()).isEqualTo(1);
      server.thaw();
      r.await("a Reconnected fault", WAIT,
          () -> r.faults().stream().anyMatch(f -> f instanceof EventPlaneFault.Reconnected));
      try (Connection c = publisher(server)) {
        publish(c, bytes, 15, 20);
      }
      r.await("the later messages", WAIT, () -> r.events().size() == 15);
      assertThat(r.faults()).contains(new EventPlaneFault.SequenceGap(PUBLISHER, 10, 15));
      assertThat(r.events().get(14).event()).isEqualTo(RawPublisher.routerEvent(19, WORKER));
    }
  }
}
