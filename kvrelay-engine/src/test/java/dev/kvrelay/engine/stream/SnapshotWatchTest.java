package dev.kvrelay.engine.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SnapshotWatchTest {

  /** Everything the stream has ready now, in order. */
  static <T> List<T> drain(RelayStream<T> s) throws Exception {
    List<T> out = new ArrayList<>();
    T v;
    while ((v = s.poll()) != null) {
      out.add(v);
    }
    return out;
  }

  @Test
  void subscriberReceivesTheCurrentValueImmediately() throws Exception {
    SnapshotWatch<String> watch = new SnapshotWatch<>("rev0");
    watch.publish("rev1");
    RelayStream<String> s = watch.subscribe(null);
    assertThat(s.poll()).isEqualTo("rev1");
    assertThat(s.poll()).isNull();
    assertThat(s.isFinished()).isFalse();
  }

  @Test
  void publicationsWhileNotReadingAreCoalescedToTheLatest() throws Exception {
    SnapshotWatch<Integer> watch = new SnapshotWatch<>(0);
    RelayStream<Integer> s = watch.subscribe(null);
    assertThat(s.poll()).isEqualTo(0);
    watch.publish(1);
    watch.publish(2);
    watch.publish(3);
    assertThat(drain(s)).containsExactly(3);
  }

  @Test
  void coalescingNeverGoesBackwards() throws Exception {
    SnapshotWatch<Integer> watch = new SnapshotWatch<>(0);
    RelayStream<Integer> s = watch.subscribe(null);
    List<Integer> seen = new ArrayList<>(drain(s));
    for (int i = 1; i <= 50; i++) {
      watch.publish(i);
      if (i % 3 == 0) {
        seen.addAll(drain(s));
      }
    }
    seen.addAll(drain(s));
    assertThat(seen).isSorted().doesNotHaveDuplicates().startsWith(0).endsWith(50);
    assertThat(seen).contains(3, 6, 48); // values read right after they were published
  }

  @Test
  void sameValuePublishedTwiceIsDeliveredTwice() throws Exception {
    SnapshotWatch<String> watch = new SnapshotWatch<>("a");
    RelayStream<String> s = watch.subscribe(null);
    assertThat(drain(s)).containsExactly("a");
    watch.publish("a");
    assertThat(drain(s)).containsExactly("a");
  }

  @Test
  void closeFinishesEveryStreamCleanlyAfterTheLatestValue() throws Exception {
    SnapshotWatch<Integer> watch = new SnapshotWatch<>(0);
    RelayStream<Integer> reader = watch.subscribe(null);
    RelayStream<Integer> idle = watch.subscribe(null);
    assertThat(reader.poll()).isEqualTo(0);
    watch.publish(7);
    watch.close();
    assertThat(idle.isFinished()).isFalse();
    assertThat(drain(idle)).containsExactly(7);
    assertThat(idle.isFinished()).isTrue();
    assertThat(drain(reader)).containsExactly(7);
    assertThat(reader.isFinished()).isTrue();
    assertThat(reader.poll()).isNull();
    assertThat(watch.stats().subscribers()).isZero();
  }

  @Test
  void subscribingToAClosedWatchDeliversTheFinalValueThenEnds() throws Exception {
    SnapshotWatch<String> watch = new SnapshotWatch<>("x");
    watch.close();
    RelayStream<String> s = watch.subscribe(null);
    assertThat(drain(s)).containsExactly("x");
    assertThat(s.isFinished()).isTrue();
  }

  @Test
  void publishAfterCloseIsIgnoredAndCounted() throws Exception {
    SnapshotWatch<String> watch = new SnapshotWatch<>("x");
    watch.close();
    watch.close();
    watch.publish("y");
    assertThat(watch.current()).isEqualTo("x");
    assertThat(watch.stats()).isEqualTo(new SnapshotWatchStats(0, 1, 0, true));
  }

  @Test
  void permitIsReleasedWhenTheConsumerCloses() throws Exception {
    AdmissionLimit limit = new AdmissionLimit("catalog stream", 1);
    SnapshotWatch<String> watch = new SnapshotWatch<>("x");
    RelayStream<String> s = watch.subscribe(limit.acquire());
    assertThat(limit.inUse()).isEqualTo(1);
    s.close();
    s.close();
    assertThat(limit.inUse()).isZero();
    assertThat(s.isFinished()).isTrue();
    assertThat(s.poll()).isNull();
    assertThat(watch.stats().subscribers()).isZero();
  }

  @Test
  void permitIsReleasedWhenTheStreamEndsWithTheWatch() throws Exception {
    AdmissionLimit limit = new AdmissionLimit("readiness stream", 2);
    SnapshotWatch<String> watch = new SnapshotWatch<>("x");
    RelayStream<String> drained = watch.subscribe(limit.acquire());
    RelayStream<String> pending = watch.subscribe(limit.acquire());
    assertThat(drained.poll()).isEqualTo("x");
    watch.close();
    assertThat(limit.inUse()).as("the drained stream ended at once, the other still holds a value").isEqualTo(1);
    assertThat(drain(pending)).containsExactly("x");
    assertThat(limit.inUse()).isZero();
  }

  @Test
  void onAvailableRunsAtOnceIfSomethingIsReadyAndOnEachPublication() throws Exception {
    SnapshotWatch<Integer> watch = new SnapshotWatch<>(0);
    RelayStream<Integer> s = watch.subscribe(null);
    AtomicInteger calls = new AtomicInteger();
    s.onAvailable(calls::incrementAndGet);
    assertThat(calls).hasValue(1);
    drain(s);
    s.onAvailable(calls::incrementAndGet);
    assertThat(calls).as("nothing ready: not run at registration").hasValue(1);
    watch.publish(1);
    assertThat(calls).hasValue(2);
    watch.close();
    assertThat(calls).hasValue(3);
  }

  @Test
  void timedPollWaitsForThePublication() throws Exception {
    SnapshotWatch<Integer> watch = new SnapshotWatch<>(0);
    RelayStream<Integer> s = watch.subscribe(null);
    drain(s);
    CompletableFuture<Integer> got = CompletableFuture.supplyAsync(() -> {
      try {
        return s.poll(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(20);
    watch.publish(9);
    assertThat(got.get(5, TimeUnit.SECONDS)).isEqualTo(9);
  }

  @Test
  void timedPollReturnsNullWhenNothingCame() throws Exception {
    SnapshotWatch<Integer> watch = new SnapshotWatch<>(0);
    RelayStream<Integer> s = watch.subscribe(null);
    drain(s);
    long t0 = System.nanoTime();
    assertThat(s.poll(30, TimeUnit.MILLISECONDS)).isNull();
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
  }

  @Test
  void timedPollReturnsAtOnceWhenTheWatchCloses() throws Exception {
    SnapshotWatch<Integer> watch = new SnapshotWatch<>(0);
    RelayStream<Integer> s = watch.subscribe(null);
    drain(s);
    CompletableFuture<Boolean> finished = CompletableFuture.supplyAsync(() -> {
      try {
        return s.poll(5, TimeUnit.SECONDS) == null && s.isFinished();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(20);
    watch.close();
    assertThat(finished.get(2, TimeUnit.SECONDS)).isTrue();
  }
}
