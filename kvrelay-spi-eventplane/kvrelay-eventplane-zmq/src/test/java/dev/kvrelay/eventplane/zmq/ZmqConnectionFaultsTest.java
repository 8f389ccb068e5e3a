package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.eventplane.zmq.PeerRecorder.Delivered;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.EventTopics;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Connection faults from jeromq's socket monitor, against the independent libzmq publisher ({@code zmq_peer.py}):
 * a publisher killed with SIGKILL is one {@code Disconnected} naming its endpoint, and the same endpoint bound again
 * by a new process is one {@code Reconnected}, however many reconnect attempts happened in between; both counted in
 * {@link ZmqStats}. A publisher the caller disconnects on purpose, and the first connection of a channel, are not
 * faults. Every wait is a condition with a deadline.
 */
class ZmqConnectionFaultsTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final long WORKER = 4242;
  static final long WAIT_S = 60;

  @AutoClose final Closer closer = new Closer();

  @BeforeEach
  void requirePeer() {
    PythonPeer.requirePeer();
  }


  private static void events(PythonPeer peer, int first, int count) throws Exception {
    peer.call("{\"op\":\"events\",\"first\":" + first + ",\"count\":" + count + ",\"worker\":" + WORKER
        + ",\"skip\":[]}", "SENT ", WAIT_S);
  }

  private static List<EventPlaneFault> linkFaults(PeerRecorder r) {
    return r.log().stream()
        .filter(o -> o instanceof EventPlaneFault.Disconnected || o instanceof EventPlaneFault.Reconnected)
        .map(EventPlaneFault.class::cast).toList();
  }

  @Test
  void aKilledPublisherIsOneDisconnectedAndItsReturnOneReconnected() throws Exception {
    long id = 5150;
    ZmqEventPlane plane = closer.add(ZmqEventPlane.open(ZmqSettings.direct(1)));
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    PythonPeer first = closer.add(PythonPeer.directPublisher(id));
    String endpoint = first.endpoint();
    s.connect(new ChannelLocator.Zmq(id, endpoint));
    first.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    events(first, 0, 10);
    r.awaitDelivered(10, WAIT_S);
    assertThat(linkFaults(r)).as("the first connection is not a fault").isEmpty();

    first.kill();
    PeerRecorder.poll(() -> !linkFaults(r).isEmpty(), WAIT_S, () -> "a Disconnected after SIGKILL");
    assertThat(linkFaults(r)).containsExactly(new EventPlaneFault.Disconnected(endpoint));
    assertThat(plane.stats().disconnects()).isEqualTo(1);
    assertThat(plane.stats().reconnects()).isZero();

    // the SUB retries (100 ms growing to 5 s) against a closed port while the new process starts
    PythonPeer again = closer.add(PythonPeer.directPublisherAt(id, endpoint));
    PeerRecorder.poll(() -> linkFaults(r).size() >= 2, WAIT_S, () -> "a Reconnected after the restart");
    again.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    events(again, 10, 5);
    List<Delivered> got = r.awaitDelivered(15, WAIT_S);
    for (int i = 0; i < 15; i++) {
      assertThat(got.get(i).payload()).as("event %d", i).isEqualTo(PeerRecorder.routerEvent(WORKER, i));
    }
    assertThat(linkFaults(r)).containsExactly(new EventPlaneFault.Disconnected(endpoint),
        new EventPlaneFault.Reconnected(endpoint));
    List<Object> log = r.log();
    assertThat(log.indexOf(new EventPlaneFault.Reconnected(endpoint))).as("reported before the new events")
        .isLessThan(log.indexOf(got.get(10)));
    ZmqStats st = plane.stats();
    assertThat(st.disconnects()).isEqualTo(1);
    assertThat(st.reconnects()).isEqualTo(1);
    assertThat(st.droppedTotal()).isZero();
    // the new process restarted its sequence at 0 under the same id: that is the sequence check's business
    assertThat(r.breaks()).last().isInstanceOf(EventPlaneFault.SequenceRegression.class);
  }

  @Test
  void aPublisherDisconnectedOnPurposeIsNotAFault() throws Exception {
    long id = 6160;
    ZmqEventPlane plane = closer.add(ZmqEventPlane.open(ZmqSettings.direct(1)));
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    PythonPeer a = closer.add(PythonPeer.directPublisher(id));
    PythonPeer b = closer.add(PythonPeer.directPublisher(id + 1));
    ChannelLocator.Zmq channelA = new ChannelLocator.Zmq(id, a.endpoint());
    s.connect(channelA);
    a.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    s.disconnect(channelA);
    a.kill();
    // b's connection, handshake and messages come through the same socket and monitor after a's removal
    s.connect(new ChannelLocator.Zmq(id + 1, b.endpoint()));
    b.warmUp(r, EventTopics.KV_EVENTS, WAIT_S);
    events(b, 0, 5);
    r.awaitDelivered(5, WAIT_S);
    assertThat(linkFaults(r)).isEmpty();
    assertThat(plane.stats().disconnects()).isZero();
    assertThat(plane.stats().reconnects()).isZero();
  }
}
