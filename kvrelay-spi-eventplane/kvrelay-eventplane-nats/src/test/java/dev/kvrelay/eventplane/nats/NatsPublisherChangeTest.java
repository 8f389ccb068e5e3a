package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventTopics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A NATS publisher that changes is reported, never absorbed, with the ZMQ plane's rule (runtime-inputs §5.4,
 * §6.3 step 5): against a real nats-server, each publisher incarnation is a separate process of the
 * independent raw-protocol publisher ({@code nats_raw_publisher.py}, python3-msgpack). A new publisher id (a
 * restarted worker) is one {@code NewPublisher} right before its first message; a first message that does not
 * start at sequence 0 is a {@code NewPublisher} that is not {@code fromStart()} (counted as a late join); the
 * same id restarting at 0 is exactly one {@code SequenceRegression}, after which its messages are in order.
 */
class NatsPublisherChangeTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final String SUBJECT = SCOPE.subject(EventTopics.KV_EVENTS);
  static final long WORKER = 77;
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  static NatsServer server;

  @BeforeAll
  static void start() throws Exception {
    RawPublisher.requirePython();
    server = NatsServer.start(dir);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static NatsEventPlane plane() throws Exception {
    return NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH));
  }

  private static void publish(long publisherId, int start, int count) throws Exception {
    RawPublisher.publish(server, SUBJECT, EventTopics.KV_EVENTS, publisherId, WORKER, start, count, "");
  }

  /** Asserts {@code calls[at .. at + count)} are the events of {@code publisherId} with sequences from {@code first}. */
  private static void assertEvents(List<Recording.Call> calls, int at, long publisherId, int first, int count) {
    for (int i = 0; i < count; i++) {
      long seq = first + i;
      assertThat(calls.get(at + i)).as("call %d", at + i).isInstanceOfSatisfying(Recording.Event.class, e -> {
        assertThat(e.envelope()).isEqualTo(RawPublisher.envelope(EventTopics.KV_EVENTS, publisherId, seq));
        assertThat(e.event()).isEqualTo(RawPublisher.routerEvent(seq, WORKER));
      });
    }
  }

  @Test
  void aRestartedWorkerWithANewPublisherIdIsOneNewPublisherBeforeItsFirstMessage() throws Exception {
    long first = 0xF000_0000_0000_0001L; // unsigned, above 2^63
    long second = 0x0000_0000_0000_0002L;
    try (NatsEventPlane plane = plane()) {
      Recording r = new Recording();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
      publish(first, 0, 50);
      r.awaitEvents(50, WAIT);
      publish(second, 0, 30); // the worker restarted: a new process, a new publisher id
      r.awaitEvents(80, WAIT);

      List<Recording.Call> calls = r.calls();
      assertThat(calls).hasSize(82);
      assertThat(calls.get(0)).isEqualTo(new Recording.Fault(new EventPlaneFault.NewPublisher(first, 0)));
      assertEvents(calls, 1, first, 0, 50);
      assertThat(calls.get(51)).isEqualTo(new Recording.Fault(new EventPlaneFault.NewPublisher(second, 0)));
      assertEvents(calls, 52, second, 0, 30);
      NatsPlaneStats st = plane.stats();
      assertThat(st.newPublishers()).isEqualTo(2);
      assertThat(st.lateJoins()).isZero();
      assertThat(st.sequenceGaps() + st.sequenceRegressions() + st.droppedMessages() + st.decodeErrors()).isZero();
      assertThat(st.faultsReported()).isEqualTo(2);
      assertThat(st.delivered()).isEqualTo(80);
    }
  }

  @Test
  void aFirstMessageAfterSubscribeThatIsNotSequenceZeroIsANewPublisherJoinedLate() throws Exception {
    long id = 4_000_000_001L;
    try (NatsEventPlane plane = plane()) {
      Recording r = new Recording();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
      publish(id, 100, 20); // sequences 0..99 went out before this subscription existed
      r.awaitEvents(20, WAIT);
      publish(id, 125, 5); // and 120..124 never arrive
      r.awaitEvents(25, WAIT);

      List<Recording.Call> calls = r.calls();
      assertThat(calls).hasSize(27);
      EventPlaneFault.NewPublisher joined = new EventPlaneFault.NewPublisher(id, 100);
      assertThat(joined.fromStart()).isFalse();
      assertThat(calls.get(0)).isEqualTo(new Recording.Fault(joined));
      assertEvents(calls, 1, id, 100, 20);
      assertThat(calls.get(21)).isEqualTo(new Recording.Fault(new EventPlaneFault.SequenceGap(id, 120, 125)));
      assertEvents(calls, 22, id, 125, 5);
      NatsPlaneStats st = plane.stats();
      assertThat(st.newPublishers()).isEqualTo(1);
      assertThat(st.lateJoins()).isEqualTo(1);
      assertThat(st.sequenceGaps()).isEqualTo(1);
      assertThat(st.missingMessages()).isEqualTo(5);
      assertThat(st.faultsReported()).isEqualTo(2);
    }
  }

  @Test
  void aPublisherIdReusedByARestartedProcessIsExactlyOneRegression() throws Exception {
    long id = 909;
    try (NatsEventPlane plane = plane()) {
      Recording r = new Recording();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
      publish(id, 0, 40);
      r.awaitEvents(40, WAIT);
      publish(id, 0, 20); // a new process under the old id starts again at 0
      r.awaitEvents(60, WAIT);

      List<Recording.Call> calls = r.calls();
      assertThat(calls).hasSize(62);
      assertThat(calls.get(0)).isEqualTo(new Recording.Fault(new EventPlaneFault.NewPublisher(id, 0)));
      assertEvents(calls, 1, id, 0, 40);
      assertThat(calls.get(41)).isEqualTo(new Recording.Fault(new EventPlaneFault.SequenceRegression(id, 40, 0)));
      assertEvents(calls, 42, id, 0, 20);
      NatsPlaneStats st = plane.stats();
      assertThat(st.sequenceRegressions()).as("one restart, one report").isEqualTo(1);
      assertThat(st.newPublishers()).isEqualTo(1);
      assertThat(st.sequenceGaps()).isZero();
      assertThat(st.faultsReported()).isEqualTo(2);
    }
  }
}
