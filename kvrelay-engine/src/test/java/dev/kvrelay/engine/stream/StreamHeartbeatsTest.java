package dev.kvrelay.engine.stream;

import static dev.kvrelay.engine.stream.SnapshotWatchTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StreamHeartbeatsTest {
  private static final long MS = 1_000_000L;
  private static final long INTERVAL_MS = 100;

  /** Immutable: a complete snapshot with its revision. */
  record Snapshot(long revision) {}

  /** Immutable: a message taken at a clock time (ms). */
  record Taken(long atMs, long revision) {}

  private final ManualTimers timers = new ManualTimers();
  private final SnapshotWatch<Snapshot> watch = new SnapshotWatch<>(new Snapshot(1));
  private final List<Taken> taken = new ArrayList<>();

  private RelayStream<Snapshot> subscribe(AdmissionPermit permit) {
    return StreamHeartbeats.every(watch.subscribe(permit), watch::current, INTERVAL_MS, timers, timers::now);
  }

  private void takeAt(long ms, RelayStream<Snapshot> s) throws Exception {
    timers.advanceTo(ms * MS);
    for (Snapshot v : drain(s)) {
      taken.add(new Taken(ms, v.revision()));
    }
  }

  @Test
  void firstHeartbeatComesOneIntervalAfterSubscription() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    takeAt(0, s);
    takeAt(99, s);
    takeAt(100, s);
    assertThat(taken).containsExactly(new Taken(0, 1), new Taken(100, 1));
  }

  @Test
  void heartbeatResendsTheCurrentValueUnchanged() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    drain(s);
    Snapshot rev2 = new Snapshot(2);
    watch.publish(rev2);
    assertThat(drain(s)).containsExactly(rev2);
    timers.advanceTo(100 * MS);
    List<Snapshot> heartbeat = drain(s);
    assertThat(heartbeat).hasSize(1);
    assertThat(heartbeat.get(0)).as("the same snapshot, same revision").isSameAs(rev2);
  }

  @Test
  void cadenceIsNotResetByChanges() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    takeAt(0, s);
    timers.advanceTo(40 * MS);
    watch.publish(new Snapshot(2));
    takeAt(40, s);
    takeAt(100, s);
    timers.advanceTo(150 * MS);
    watch.publish(new Snapshot(3));
    takeAt(150, s);
    takeAt(199, s);
    takeAt(200, s);
    takeAt(300, s);
    assertThat(taken).containsExactly(new Taken(0, 1), new Taken(40, 2), new Taken(100, 2), new Taken(150, 3),
        new Taken(200, 3), new Taken(300, 3));
  }

  @Test
  void missedTicksAreDelayedNotBursted() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    takeAt(0, s);
    timers.advanceTo(350 * MS); // ticks at 100 (heartbeat pending), 200 and 300 (missed: not yet taken)
    takeAt(350, s);
    assertThat(taken).as("one heartbeat for three ticks").containsExactly(new Taken(0, 1), new Taken(350, 1));
    takeAt(449, s);
    takeAt(450, s); // the next tick is one interval after the missed ones were handled
    takeAt(549, s);
    takeAt(550, s);
    assertThat(taken).containsExactly(new Taken(0, 1), new Taken(350, 1), new Taken(450, 1), new Taken(550, 1));
  }

  @Test
  void timerFiringLaterThanTheToleranceDelaysTheCadence() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    drain(s);
    long late = 100 + StreamHeartbeats.LATE_TICK_TOLERANCE_MS + 1;
    timers.jumpTo(late * MS);
    assertThat(drain(s)).hasSize(1);
    takeAt(late + 99, s);
    takeAt(late + 100, s);
    assertThat(taken).containsExactly(new Taken(late + 100, 1));
  }

  @Test
  void timerFiringWithinTheToleranceKeepsTheCadence() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    drain(s);
    timers.jumpTo((100 + StreamHeartbeats.LATE_TICK_TOLERANCE_MS) * MS);
    assertThat(drain(s)).hasSize(1);
    takeAt(199, s);
    takeAt(200, s);
    assertThat(taken).containsExactly(new Taken(200, 1));
  }

  @Test
  void heartbeatsStopWhenTheUpstreamEnds() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    drain(s);
    watch.close();
    assertThat(drain(s)).isEmpty();
    assertThat(s.isFinished()).isTrue();
    takeAt(500, s);
    assertThat(taken).isEmpty();
    assertThat(timers.pending()).as("no timer re-armed after the end").isZero();
  }

  @Test
  void noHeartbeatFollowsAnUpstreamError() throws Exception {
    WindowBroadcast<Snapshot> b = new WindowBroadcast<>(2, new Snapshot(1), Snapshot::revision);
    RelayStream<Snapshot> s = StreamHeartbeats.every(b.subscribe(null), b::current, INTERVAL_MS, timers,
        timers::now);
    timers.advanceTo(100 * MS); // a heartbeat is due
    b.close();
    assertThat(s.poll()).as("queued message first").isEqualTo(new Snapshot(1));
    assertThatThrownBy(s::poll).isInstanceOfSatisfying(RelayException.class,
        e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE));
    assertThatThrownBy(s::poll).isInstanceOf(RelayException.class);
    assertThat(s.isFinished()).isTrue();
  }

  @Test
  void closingTheStreamClosesTheUpstreamAndReleasesThePermit() throws Exception {
    AdmissionLimit limit = new AdmissionLimit("catalog stream", 1);
    RelayStream<Snapshot> s = subscribe(limit.acquire());
    s.close();
    assertThat(limit.inUse()).isZero();
    assertThat(watch.stats().subscribers()).isZero();
    takeAt(100, s);
    assertThat(taken).isEmpty();
    assertThat(s.isFinished()).isTrue();
  }

  @Test
  void onAvailableRunsForUpstreamMessagesAndForDueHeartbeats() throws Exception {
    RelayStream<Snapshot> s = subscribe(null);
    AtomicInteger calls = new AtomicInteger();
    s.onAvailable(calls::incrementAndGet);
    assertThat(calls).as("the current value is ready at once").hasPositiveValue();
    drain(s);
    int before = calls.get();
    timers.advanceTo(100 * MS);
    assertThat(calls.get()).isGreaterThan(before);
    before = calls.get();
    watch.publish(new Snapshot(2));
    assertThat(calls.get()).isGreaterThan(before);
  }

  @Test
  void timedPollWakesForARealHeartbeat() throws Exception {
    ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor();
    try {
      RelayStream<Snapshot> s = StreamHeartbeats.every(watch.subscribe(null), watch::current, 20,
          new ExecutorActorScheduler(exec), System::nanoTime);
      assertThat(s.poll()).isEqualTo(new Snapshot(1));
      long t0 = System.nanoTime();
      assertThat(s.poll(2, TimeUnit.SECONDS)).isEqualTo(new Snapshot(1));
      assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(1));
      s.close();
    } finally {
      exec.shutdownNow();
    }
  }

  @Test
  void intervalOutsideTheTimerRuleIsRejected() {
    assertThatThrownBy(() -> StreamHeartbeats.every(watch.subscribe(null), watch::current, 0, timers,
        timers::now)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> StreamHeartbeats.every(watch.subscribe(null), watch::current,
        RelayConfigKey.MAX_TIMER_MS + 1, timers, timers::now)).isInstanceOf(IllegalArgumentException.class);
  }
}
