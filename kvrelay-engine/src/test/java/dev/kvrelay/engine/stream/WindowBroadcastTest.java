package dev.kvrelay.engine.stream;

import static dev.kvrelay.engine.stream.SnapshotWatchTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WindowBroadcastTest {
  /** Immutable: a test window. */
  record Window(long seq) {}

  private static WindowBroadcast<Window> broadcast(int capacity) {
    return new WindowBroadcast<>(capacity, new Window(0), Window::seq);
  }

  private static List<Long> seqs(List<Window> ws) {
    List<Long> out = new ArrayList<>();
    ws.forEach(w -> out.add(w.seq()));
    return out;
  }

  private static RelayErrorReason endReason(RelayStream<Window> s) {
    try {
      drain(s);
    } catch (RelayException e) {
      return e.reason();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("stream did not end with an error");
  }

  @Test
  void subscriberReceivesTheCurrentWindowImmediately() throws Exception {
    WindowBroadcast<Window> b = broadcast(4);
    assertThat(seqs(drain(b.subscribe(null)))).containsExactly(0L);
    b.publish(new Window(1));
    b.publish(new Window(2));
    assertThat(seqs(drain(b.subscribe(null)))).as("only the current window, not the ring").containsExactly(2L);
  }

  @Test
  void subscriberThenReceivesEveryLaterWindowInOrder() throws Exception {
    WindowBroadcast<Window> b = broadcast(4);
    RelayStream<Window> s = b.subscribe(null);
    List<Window> got = new ArrayList<>(drain(s));
    for (long i = 1; i <= 10; i++) {
      b.publish(new Window(i));
      if (i % 3 == 0) {
        got.addAll(drain(s));
      }
    }
    got.addAll(drain(s));
    assertThat(seqs(got)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
  }

  @Test
  void subscriberExactlyOneRingBehindStillReadsEveryWindow() throws Exception {
    WindowBroadcast<Window> b = broadcast(3);
    RelayStream<Window> s = b.subscribe(null);
    for (long i = 1; i <= 3; i++) {
      b.publish(new Window(i));
    }
    assertThat(seqs(drain(s))).containsExactly(0L, 1L, 2L, 3L);
  }

  @Test
  void fallingBehindTheRingEndsWithSubscriberLagged() throws Exception {
    WindowBroadcast<Window> b = broadcast(3);
    RelayStream<Window> s = b.subscribe(null);
    for (long i = 1; i <= 4; i++) {
      b.publish(new Window(i));
    }
    assertThat(s.poll()).as("the current window was taken at subscription").isEqualTo(new Window(0));
    assertThatThrownBy(s::poll).isInstanceOfSatisfying(RelayException.class,
        e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED));
    assertThat(s.isFinished()).isTrue();
    assertThatThrownBy(s::poll).as("every later poll throws too").isInstanceOfSatisfying(RelayException.class,
        e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED));
    assertThat(b.stats().lagged()).isEqualTo(1);
    assertThat(b.stats().subscribers()).isZero();
  }

  @Test
  void laggingSubscriberDoesNotDisturbOthers() throws Exception {
    WindowBroadcast<Window> b = broadcast(2);
    RelayStream<Window> slow = b.subscribe(null);
    RelayStream<Window> fast = b.subscribe(null);
    List<Window> got = new ArrayList<>(drain(fast));
    for (long i = 1; i <= 6; i++) {
      b.publish(new Window(i));
      got.addAll(drain(fast));
    }
    assertThat(seqs(got)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(endReason(slow)).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
  }

  @Test
  void windowWithSequenceNotAboveTheLastSentIsSkipped() throws Exception {
    WindowBroadcast<Window> b = broadcast(4);
    b.publish(new Window(1));
    b.publish(new Window(2));
    // The race of a publication landing between reading the ring position and the current window: the
    // stream starts with current = window 2 and a ring cursor still at window 2 (index 1).
    RelayStream<Window> s = b.subscribeFrom(1, null);
    b.publish(new Window(3));
    assertThat(seqs(drain(s))).containsExactly(2L, 3L);
  }

  @Test
  void closedBroadcastEndsWithPublicationUnavailableAfterTheRingDrains() throws Exception {
    WindowBroadcast<Window> b = broadcast(4);
    RelayStream<Window> s = b.subscribe(null);
    b.publish(new Window(1));
    b.close();
    assertThat(s.poll()).isEqualTo(new Window(0));
    assertThat(s.poll()).isEqualTo(new Window(1));
    assertThat(s.isFinished()).as("only the error is left").isTrue();
    assertThatThrownBy(s::poll).isInstanceOfSatisfying(RelayException.class, e -> {
      assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
      assertThat(e.reason().statusCode()).isEqualTo("UNAVAILABLE");
    });
    assertThatThrownBy(s::poll).isInstanceOf(RelayException.class);
  }

  @Test
  void subscribingToAClosedBroadcastGivesTheCurrentWindowThenUnavailable() throws Exception {
    WindowBroadcast<Window> b = broadcast(4);
    b.publish(new Window(5));
    b.close();
    RelayStream<Window> s = b.subscribe(null);
    assertThat(s.poll()).isEqualTo(new Window(5));
    assertThat(endReason(s)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
  }

  @Test
  void publishAfterCloseIsIgnoredAndCounted() {
    WindowBroadcast<Window> b = broadcast(2);
    b.close();
    b.close();
    b.publish(new Window(1));
    assertThat(b.current()).isEqualTo(new Window(0));
    assertThat(b.stats()).isEqualTo(new WindowBroadcastStats(0, 1, 0, 0, true));
  }

  @Test
  void nonIncreasingSequenceIsRejectedAndChangesNothing() throws Exception {
    WindowBroadcast<Window> b = broadcast(2);
    RelayStream<Window> s = b.subscribe(null);
    b.publish(new Window(3));
    assertThatThrownBy(() -> b.publish(new Window(3))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.publish(new Window(2))).isInstanceOf(IllegalArgumentException.class);
    assertThat(b.current()).isEqualTo(new Window(3));
    assertThat(b.stats().published()).isEqualTo(1);
    b.publish(new Window(4));
    assertThat(seqs(drain(s))).containsExactly(0L, 3L, 4L);
  }

  @Test
  void sequencesCompareUnsigned() throws Exception {
    WindowBroadcast<Window> b = new WindowBroadcast<>(2, new Window(Long.MAX_VALUE), Window::seq);
    RelayStream<Window> s = b.subscribe(null);
    b.publish(new Window(Long.MIN_VALUE)); // 2^63, above 2^63 - 1 as an unsigned 64-bit value
    b.publish(new Window(-1)); // 2^64 - 1
    assertThat(seqs(drain(s))).containsExactly(Long.MAX_VALUE, Long.MIN_VALUE, -1L);
    assertThatThrownBy(() -> b.publish(new Window(0))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void permitIsReleasedOnConsumerCloseAndOnLag() throws Exception {
    AdmissionLimit limit = new AdmissionLimit("load stream", 3);
    WindowBroadcast<Window> b = broadcast(1);
    RelayStream<Window> closedByConsumer = b.subscribe(limit.acquire());
    RelayStream<Window> lagging = b.subscribe(limit.acquire());
    RelayStream<Window> reader = b.subscribe(limit.acquire());
    assertThat(limit.inUse()).isEqualTo(3);
    closedByConsumer.close();
    assertThat(limit.inUse()).isEqualTo(2);
    drain(lagging);
    drain(reader);
    b.publish(new Window(1));
    b.publish(new Window(2));
    assertThat(endReason(lagging)).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
    assertThat(limit.inUse()).isEqualTo(1);
    assertThat(endReason(reader)).as("a ring of 1 and two windows: lags too").isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
    assertThat(limit.inUse()).isZero();
  }

  @Test
  void permitIsReleasedWhenTheBroadcastClosesAndTheStreamHasNothingLeft() throws Exception {
    AdmissionLimit limit = new AdmissionLimit("serving-load stream", 2);
    WindowBroadcast<Window> b = broadcast(2);
    RelayStream<Window> drained = b.subscribe(limit.acquire());
    RelayStream<Window> pending = b.subscribe(limit.acquire());
    drain(drained);
    b.close();
    assertThat(limit.inUse()).isEqualTo(1);
    assertThat(endReason(pending)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(limit.inUse()).isZero();
  }

  @Test
  void onAvailableRunsForEachWindowAndForTheEnd() throws Exception {
    WindowBroadcast<Window> b = broadcast(2);
    RelayStream<Window> s = b.subscribe(null);
    AtomicInteger calls = new AtomicInteger();
    s.onAvailable(calls::incrementAndGet);
    assertThat(calls).as("the current window is ready").hasValue(1);
    drain(s);
    b.publish(new Window(1));
    assertThat(calls).hasValue(2);
    b.close();
    assertThat(calls).hasValue(3);
  }

  @Test
  void capacityBelowOneIsRejected() {
    assertThatThrownBy(() -> broadcast(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
