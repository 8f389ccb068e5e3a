package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.EventTopics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An independent publisher (python3-msgpack envelopes over a raw-protocol NATS socket client) publishes on
 * the upstream subjects (plugins-wire §6); the plane must deliver exactly the values the script's formulas
 * define, with their envelopes, in order, and report no fault but each publisher's first message
 * ({@code NewPublisher}).
 */
class PythonPublisherInteropTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final long PUBLISHER = 4_503_599_627_370_001L;
  static final long WORKER = Long.parseUnsignedLong("18000000000000000000");

  @TempDir static Path dir;
  static NatsServer server;

  @BeforeAll
  static void start() throws Exception {
    RawPublisher.requirePython();
    server = NatsServer.start(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static NatsEventPlane plane() throws Exception {
    return NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH));
  }

  @Test
  void kvEventsOnTheKvStateEndpointSubjectArriveExactly() throws Exception {
    assertThat(SCOPE.subject(EventTopics.KV_EVENTS))
        .isEqualTo("namespace.dynamo.component.backend.endpoint.generate.kv-events");
    int n = 3_000;
    try (NatsEventPlane plane = plane()) {
      Recording r = new Recording();
      try (EventSubscription s = plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r)) {
        assertThat(s.topic()).isEqualTo(EventTopics.KV_EVENTS);
        RawPublisher.publish(server, "namespace.dynamo.component.backend.endpoint.generate.kv-events",
            EventTopics.KV_EVENTS, PUBLISHER, WORKER, 0, n, "");
        r.awaitEvents(n, Duration.ofSeconds(30));
        List<Recording.Event> got = r.events();
        assertThat(got).hasSize(n);
        for (int i = 0; i < n; i++) {
          assertThat(got.get(i).envelope()).isEqualTo(RawPublisher.envelope(EventTopics.KV_EVENTS, PUBLISHER, i));
          assertThat(got.get(i).event()).as("event %d", i).isEqualTo(RawPublisher.routerEvent(i, WORKER));
        }
        assertThat(r.calls().get(0)).as("reported before its first message")
            .isEqualTo(new Recording.Fault(new EventPlaneFault.NewPublisher(PUBLISHER, 0)));
        assertThat(r.faults()).as("nothing else").hasSize(1);
        NatsPlaneStats st = plane.stats();
        assertThat(st.delivered()).isEqualTo(n);
        assertThat(st.newPublishers()).isEqualTo(1);
        assertThat(st.sequenceGaps() + st.droppedMessages() + st.decodeErrors() + st.disconnects()).isZero();
      }
    }
  }

  @Test
  void loadsOnTheServingEndpointKvMetricsSubjectArriveExactly() throws Exception {
    int n = 500;
    try (NatsEventPlane plane = plane()) {
      Recording r = new Recording();
      plane.subscribe(SCOPE, EventTopics.KV_METRICS, r);
      RawPublisher.publish(server, "namespace.dynamo.component.backend.endpoint.generate.kv_metrics",
          EventTopics.KV_METRICS, 77, 9, 10, n, "");
      r.await(n + " loads", Duration.ofSeconds(30), () -> r.count(c -> c instanceof Recording.Load) >= n);
      List<Recording.Call> calls = r.calls();
      assertThat(calls).hasSize(n + 1);
      // the subscription joined after sequences 0..9: a new publisher, not seen from its start
      assertThat(calls.get(0)).isEqualTo(new Recording.Fault(new EventPlaneFault.NewPublisher(77, 10)));
      for (int i = 0; i < n; i++) {
        Recording.Load l = (Recording.Load) calls.get(i + 1);
        assertThat(l.envelope()).isEqualTo(RawPublisher.envelope(EventTopics.KV_METRICS, 77, 10 + i));
        assertThat(l.load()).isEqualTo(RawPublisher.activeLoad(10 + i, 9));
      }
      assertThat(plane.stats().delivered()).isEqualTo(n);
    }
  }

  @Test
  void aPublisherOnTheOtherTopicOfTheSameScopeIsNotDelivered() throws Exception {
    try (NatsEventPlane plane = plane()) {
      Recording r = new Recording();
      plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
      RawPublisher.publish(server, SCOPE.subject(EventTopics.KV_METRICS), EventTopics.KV_METRICS, 1, 1, 0, 20, "");
      RawPublisher.publish(server, SCOPE.subject(EventTopics.KV_EVENTS), EventTopics.KV_EVENTS, 2, 2, 0, 1, "");
      r.awaitEvents(1, Duration.ofSeconds(20));
      assertThat(r.calls()).as("the kv_metrics messages never reach the kv-events subscription")
          .containsExactly(new Recording.Fault(new EventPlaneFault.NewPublisher(2, 0)), r.events().get(0));
    }
  }

  @Test
  void channelsThisPlaneCannotReceiveAreRefused() throws Exception {
    try (NatsEventPlane plane = plane()) {
      EventSubscription s = plane.subscribe(SCOPE, EventTopics.KV_EVENTS, new Recording());
      s.connect(new ChannelLocator.Nats("namespace.dynamo.component.backend.endpoint.generate")); // accepted
      assertThatThrownBy(() -> s.connect(new ChannelLocator.Nats("namespace.dynamo.component.other.endpoint.generate")))
          .isInstanceOfSatisfying(EventPlaneException.class,
              e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.INVALID_ARGUMENT));
      assertThatThrownBy(() -> s.connect(new ChannelLocator.Zmq(1, "tcp://127.0.0.1:5555")))
          .isInstanceOfSatisfying(EventPlaneException.class,
              e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.UNSUPPORTED_CHANNEL));
      s.close();
      assertThatThrownBy(() -> s.connect(new ChannelLocator.Nats(SCOPE.subjectPrefix())))
          .isInstanceOfSatisfying(EventPlaneException.class,
              e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.CLOSED));
    }
  }
}
