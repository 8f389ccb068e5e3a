package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.eventplane.zmq.PeerRecorder.Delivered;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ZMQ plane against an independent peer: {@code zmq_peer.py} on Debian's libzmq (python3-zmq) and
 * python3-msgpack, written from the spec (runtime-inputs §5.3–§5.7, §8; plugins-wire §2). Each test starts its
 * peers on free loopback ports and stops them; every wait polls a condition with a deadline. The peer warms a
 * subscription up with marker messages (the PUB/SUB slow-joiner window) before the messages under test.
 */
class PythonZmqInteropTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final long WORKER = Long.parseUnsignedLong("7587891234567890123");
  static final long WAIT_S = 60;

  @AutoClose final Closer closer = new Closer();

  @BeforeEach
  void requirePeer() {
    PythonPeer.requirePeer();
  }


  private ZmqEventPlane plane(ZmqSettings settings) {
    return closer.add(ZmqEventPlane.open(settings));
  }

  private PythonPeer publisher(long id) throws Exception {
    return closer.add(PythonPeer.directPublisher(id));
  }

  /** Sends events {@code first … first+count-1}; returns the sequence of the first (from the peer's reply). */
  private static long events(PythonPeer peer, long worker, int first, int count, String skip) throws Exception {
    String reply = peer.call("{\"op\":\"events\",\"first\":" + first + ",\"count\":" + count + ",\"worker\":"
        + Long.toUnsignedString(worker) + ",\"skip\":[" + skip + "]}", "SENT ", WAIT_S);
    long next = Long.parseLong(reply.split(" ")[2]);
    return next - count;
  }

  private static void assertEvents(List<Delivered> got, long publisherId, long worker, int first, long firstSeq,
      List<Integer> skipped) {
    int k = 0;
    for (int i = 0; i < got.size() + skipped.size(); i++) {
      if (skipped.contains(first + i)) {
        continue;
      }
      Delivered d = got.get(k++);
      assertThat(d.payload()).as("event %d", first + i).isEqualTo(PeerRecorder.routerEvent(worker, first + i));
      EventEnvelope env = d.envelope();
      assertThat(env.publisherId()).isEqualTo(publisherId);
      assertThat(env.sequence()).isEqualTo(firstSeq + i);
      assertThat(env.topic()).isEqualTo(EventTopics.KV_EVENTS);
    }
    assertThat(k).isEqualTo(got.size());
  }

  @Test
  void normalStreamIsReceivedExactly() throws Exception {
    long id = 4_503_599_627_370_001L;
    ZmqEventPlane plane = plane(ZmqSettings.direct(2));
    PythonPeer peer = publisher(id);
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    s.connect(new ChannelLocator.Zmq(id, peer.endpoint()));
    peer.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    long firstSeq = events(peer, WORKER, 0, 500, "");
    List<Delivered> got = r.awaitDelivered(500, WAIT_S);
    assertThat(got).hasSize(500);
    assertEvents(got, id, WORKER, 0, firstSeq, List.of());
    assertThat(r.errors()).isEmpty();
    assertThat(r.breaks()).as("only the first marker was news").singleElement()
        .isInstanceOfSatisfying(EventPlaneFault.NewPublisher.class, n -> assertThat(n.publisherId()).isEqualTo(id));
    ZmqStats st = plane.stats();
    assertThat(st.droppedTotal()).isZero();
    assertThat(st.sequenceGaps()).isZero();
    assertThat(st.delivered()).isEqualTo(500 + r.markers.get());
    assertThat(st.newPublishers()).isEqualTo(1);
  }

  @Test
  void kvMetricsLoadsAreDeliveredExactly() throws Exception {
    long id = 91;
    ZmqEventPlane plane = plane(ZmqSettings.direct(1));
    PythonPeer peer = publisher(id);
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_METRICS, r));
    s.connect(new ChannelLocator.Zmq(id, peer.endpoint()));
    peer.warmUp(r, EventTopics.KV_METRICS, WAIT_S);
    String reply = peer.call("{\"op\":\"loads\",\"first\":0,\"count\":50,\"worker\":"
        + Long.toUnsignedString(WORKER) + "}", "SENT ", WAIT_S);
    long firstSeq = Long.parseLong(reply.split(" ")[2]) - 50;
    List<Delivered> got = r.awaitDelivered(50, WAIT_S);
    for (int i = 0; i < 50; i++) {
      assertThat(got.get(i).payload()).isEqualTo(PeerRecorder.activeLoad(WORKER, i));
      assertThat(got.get(i).envelope().sequence()).isEqualTo(firstSeq + i);
      assertThat(got.get(i).envelope().topic()).isEqualTo(EventTopics.KV_METRICS);
    }
    assertThat(r.errors()).isEmpty();
    assertThat(plane.stats().droppedTotal()).isZero();
  }

  @Test
  void publisherRestartWithANewIdIsReportedAsANewPublisher() throws Exception {
    long first = 1001;
    long second = 2002;
    ZmqEventPlane plane = plane(ZmqSettings.direct(1));
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    PythonPeer a = PythonPeer.directPublisher(first);
    ChannelLocator.Zmq channelA = new ChannelLocator.Zmq(first, a.endpoint());
    try {
      s.connect(channelA);
      a.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
      long seqA = events(a, WORKER, 0, 20, "");
      assertEvents(r.awaitDelivered(20, WAIT_S), first, WORKER, 0, seqA, List.of());
    } finally {
      a.close(); // the worker process ends
    }
    // discovery withdraws the old channel and advertises the new incarnation (new id, new port)
    PythonPeer b = publisher(second);
    s.disconnect(channelA);
    s.connect(new ChannelLocator.Zmq(second, b.endpoint()));
    b.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    long seqB = events(b, WORKER, 0, 20, "");
    List<Delivered> all = r.awaitDelivered(40, WAIT_S);
    assertEvents(all.subList(20, 40), second, WORKER, 0, seqB, List.of());

    List<Object> log = r.log();
    int newB = -1;
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i) instanceof EventPlaneFault.NewPublisher n && n.publisherId() == second) {
        newB = i;
      }
    }
    assertThat(newB).as("a NewPublisher report for the restarted worker").isNotNegative();
    assertThat(log.indexOf(all.get(20))).as("reported before its first event").isGreaterThan(newB);
    assertThat(r.breaks()).extracting(EventPlaneFault.SequenceFault::publisherId).containsExactly(first, second);
    assertThat(r.breaks()).allMatch(EventPlaneFault.NewPublisher.class::isInstance);
    assertThat(plane.stats().newPublishers()).isEqualTo(2);
    assertThat(plane.stats().sequenceRegressions()).isZero();
  }

  @Test
  void droppedMessagesAreReportedAsSequenceGaps() throws Exception {
    long id = 77;
    ZmqEventPlane plane = plane(ZmqSettings.direct(1));
    PythonPeer peer = publisher(id);
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    s.connect(new ChannelLocator.Zmq(id, peer.endpoint()));
    peer.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    long firstSeq = events(peer, WORKER, 0, 100, "10,50,51,52");
    List<Delivered> got = r.awaitDelivered(96, WAIT_S);
    assertEvents(got, id, WORKER, 0, firstSeq, List.of(10, 50, 51, 52));
    List<EventPlaneFault.SequenceFault> gaps = r.breaks().stream().filter(EventPlaneFault.SequenceGap.class::isInstance).toList();
    assertThat(gaps).containsExactly(
        new EventPlaneFault.SequenceGap(id, firstSeq + 10, firstSeq + 11),
        new EventPlaneFault.SequenceGap(id, firstSeq + 50, firstSeq + 53));
    List<Object> log = r.log();
    assertThat(log.indexOf(gaps.get(1))).as("the gap comes right before the event that revealed it")
        .isEqualTo(log.indexOf(got.get(49)) - 1);
    ZmqStats st = plane.stats();
    assertThat(st.sequenceGaps()).isEqualTo(2);
    assertThat(st.missedMessages()).isEqualTo(4);
    assertThat(st.droppedTotal()).isZero();
  }

  @Test
  void malformedMessagesAreCountedByKindAndDeliverNothing() throws Exception {
    long id = 5150;
    ZmqEventPlane plane = plane(ZmqSettings.direct(1));
    PythonPeer peer = publisher(id);
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    s.connect(new ChannelLocator.Zmq(id, peer.endpoint()));
    peer.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    Map<String, ZmqDrop> cases = new java.util.LinkedHashMap<>();
    cases.put("three_frames", ZmqDrop.FRAME_COUNT);
    cases.put("five_frames", ZmqDrop.FRAME_COUNT);
    cases.put("short_id_frame", ZmqDrop.FRAME_SIZE);
    cases.put("bad_version", ZmqDrop.FRAME_VERSION);
    cases.put("length_mismatch", ZmqDrop.PAYLOAD_LENGTH);
    cases.put("bad_msgpack", ZmqDrop.UNDECODABLE);
    cases.put("bad_payload", ZmqDrop.UNDECODABLE);
    cases.put("publisher_mismatch", ZmqDrop.PUBLISHER_MISMATCH);
    cases.put("unexpected_publisher", ZmqDrop.UNEXPECTED_PUBLISHER);
    cases.put("sequence_mismatch", ZmqDrop.SEQUENCE_MISMATCH);
    cases.put("frame0_mismatch", ZmqDrop.TOPIC_MISMATCH);
    cases.put("envelope_topic_mismatch", ZmqDrop.TOPIC_MISMATCH);
    // the warm-up stops at the first command; wait for its stragglers so the break log below is the raw cases'
    peer.call("{\"op\":\"raw\",\"case\":\"three_frames\"}", "RAW ", WAIT_S);
    PeerRecorder.poll(() -> plane.stats().dropped(ZmqDrop.FRAME_COUNT) == 1, WAIT_S, () -> "first raw case");
    int breaksBefore = r.breaks().size();
    for (String c : cases.keySet()) {
      if (!c.equals("three_frames")) {
        peer.call("{\"op\":\"raw\",\"case\":\"" + c + "\"}", "RAW ", WAIT_S);
      }
    }
    long seq = events(peer, WORKER, 0, 1, "");
    List<Delivered> got = r.awaitDelivered(1, WAIT_S);
    assertEvents(got, id, WORKER, 0, seq, List.of());

    ZmqStats st = plane.stats();
    for (ZmqDrop kind : ZmqDrop.values()) {
      long want = cases.values().stream().filter(kind::equals).count();
      assertThat(st.dropped(kind)).as("dropped %s", kind).isEqualTo(want);
    }
    assertThat(r.errors()).hasSize(cases.size());
    assertThat(r.errors()).allSatisfy(f -> assertThat(f.error().publisherId()).isEqualTo(f.publisherId()));
    assertThat(r.breaks().subList(breaksBefore, r.breaks().size()))
        .as("no malformed message moved a sequence: the next good one follows the markers without a break")
        .isEmpty();
    assertThat(st.delivered()).isEqualTo(1 + r.markers.get());
    assertThat(st.received()).isEqualTo(st.delivered() + cases.size());
  }

  @Test
  void brokerModeThroughAPythonXsubXpubProxy() throws Exception {
    PythonPeer broker = closer.add(PythonPeer.broker());
    EventPlane plane = closer.add(new ZmqEventPlaneProvider().open(new EventPlaneSettings(Map.of(
        ZmqSettings.BROKER_URL, "xsub=" + broker.xsub() + " , xpub=" + broker.xpub(), ZmqSettings.IO_THREADS, "2"))));
    assertThat(plane.connectsToChannels()).isFalse();
    EventScope mine = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "gen.v1"));
    PythonPeer p = closer.add(PythonPeer.brokerPublisher(31, broker.xsub(), "dynamo", "backend", "gen.v1"));
    PythonPeer other = closer.add(PythonPeer.brokerPublisher(32, broker.xsub(), "dynamo", "backend", "gen.v2"));
    PeerRecorder r = new PeerRecorder();
    closer.add(plane.subscribe(mine, EventTopics.KV_EVENTS, r));
    p.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    events(other, WORKER, 0, 30, ""); // another scope's subject: filtered out
    long seq = events(p, WORKER, 0, 200, "");
    List<Delivered> got = r.awaitDelivered(200, WAIT_S);
    assertEvents(got, 31, WORKER, 0, seq, List.of());
    assertThat(r.errors()).isEmpty();
    assertThat(r.breaks()).extracting(EventPlaneFault.SequenceFault::publisherId).containsExactly(31L);
    ZmqStats st = ((ZmqEventPlane) plane).stats();
    assertThat(st.droppedTotal()).isZero();
    assertThat(st.sequenceGaps()).isZero();
    assertThat(st.received()).isEqualTo(200 + r.markers.get());
  }

  @Test
  void burstOf100kEventsArrivesWithoutDrops() throws Exception {
    int n = 100_000;
    long id = 606;
    ZmqEventPlane plane = plane(ZmqSettings.direct(1));
    PythonPeer peer = publisher(id);
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    s.connect(new ChannelLocator.Zmq(id, peer.endpoint()));
    peer.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    peer.send("{\"op\":\"burst\",\"count\":" + n + ",\"worker\":1}");
    PeerRecorder.poll(() -> r.deliveredCount() > 0, 300, () -> "the burst's first event");
    long t0 = System.nanoTime();
    List<Delivered> got = r.awaitDelivered(n, 300);
    double seconds = (System.nanoTime() - t0) / 1e9;
    String reply = peer.await("BURST ", 300);
    assertThat(got).hasSize(n);
    long firstSeq = got.get(0).envelope().sequence();
    for (int i = 0; i < n; i++) {
      RouterEvent e = (RouterEvent) got.get(i).payload();
      assertThat(e.eventId()).isEqualTo(i);
      assertThat(got.get(i).envelope().sequence()).isEqualTo(firstSeq + i);
    }
    assertThat(got.get(n - 1).payload()).isEqualTo(PeerRecorder.routerEvent(1, n - 1));
    ZmqStats st = plane.stats();
    assertThat(st.sequenceGaps()).isZero();
    assertThat(st.droppedTotal()).isZero();
    System.out.printf("ZMQ burst: %d events received in %.3f s after the first (peer sent them in %s s): %.0f events/s%n",
        n, seconds, reply.split(" ")[2], (n - 1) / seconds);
  }
}
