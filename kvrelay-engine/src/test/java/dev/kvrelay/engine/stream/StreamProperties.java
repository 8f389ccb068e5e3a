package dev.kvrelay.engine.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Concurrent publisher and subscriber threads against simple exact models: a watch subscriber sees a strictly
 * increasing subsequence of the published values ending with the last one; a ring subscriber sees a gap-free
 * run of windows that ends with the last window (then PUBLICATION_UNAVAILABLE) or with SUBSCRIBER_LAGGED.
 */
class StreamProperties {
  private static final long JOIN_MS = 2_000;

  /** Immutable: a test window. */
  record Window(long seq) {}

  /** Not thread-safe: confined to one subscriber thread, read after it was joined. */
  static final class Observed {
    final List<Long> values = new ArrayList<>();
    @Nullable RelayErrorReason end;
  }

  /** Spins a little so threads interleave differently (no sleeps). */
  private static void jitter(int spins) {
    for (int i = 0; i < spins; i++) {
      Thread.onSpinWait();
    }
  }

  /**
   * Runs {@code subscribers} threads, each opening a stream when released and reading it to its end, while
   * {@code publish} runs on the calling thread.
   */
  private static List<Observed> run(int subscribers, IntFunction<RelayStream<Long>> open, int slowness,
      Runnable publish) throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    List<Observed> observed = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int k = 0; k < subscribers; k++) {
      Observed o = new Observed();
      observed.add(o);
      int id = k;
      Thread t = new Thread(() -> {
        try {
          go.await();
          jitter(id * 500);
          try (RelayStream<Long> s = open.apply(id)) {
            while (!s.isFinished()) {
              Long v = s.poll(50, TimeUnit.MILLISECONDS);
              if (v != null) {
                o.values.add(v);
                jitter(slowness * (id + 1) * 200);
              }
            }
            s.poll(); // the end itself
          }
        } catch (RelayException e) {
          o.end = e.reason();
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
      }, "subscriber-" + k);
      t.start();
      threads.add(t);
    }
    go.countDown();
    publish.run();
    for (Thread t : threads) {
      t.join(JOIN_MS);
      assertThat(t.isAlive()).as("%s ended in time", t.getName()).isFalse();
    }
    assertThat(failures).isEmpty();
    return observed;
  }

  @Test
  void watchSubscriberSeesAStrictlyIncreasingSubsequenceEndingWithTheLastValue() {
    qt().withExamples(40).forAll(integers().between(1, 4), integers().between(0, 400), integers().between(0, 3))
        .checkAssert((subscribers, count, slowness) -> {
          SnapshotWatch<Long> watch = new SnapshotWatch<>(0L);
          List<Observed> seen;
          try {
            seen = run(subscribers, id -> watch.subscribe(null), slowness, () -> {
              for (long v = 1; v <= count; v++) {
                watch.publish(v);
                jitter((int) (v % 7) * 50);
              }
              watch.close();
            });
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
          for (Observed o : seen) {
            assertThat(o.end).as("a watch ends cleanly").isNull();
            assertThat(o.values).isNotEmpty().isSorted().doesNotHaveDuplicates();
            assertThat(o.values.get(o.values.size() - 1)).isEqualTo((long) count);
          }
        });
  }

  @Test
  void ringSubscriberSeesAGapFreeRunEndingWithTheLastWindowOrLags() {
    qt().withExamples(40).forAll(integers().between(1, 4), integers().between(0, 400), integers().between(1, 8),
            integers().between(0, 3))
        .checkAssert((subscribers, count, capacity, slowness) -> {
          WindowBroadcast<Window> b = new WindowBroadcast<>(capacity, new Window(0), Window::seq);
          List<Observed> seen;
          try {
            seen = run(subscribers, id -> new SequenceView(b.subscribe(null)), slowness, () -> {
              for (long v = 1; v <= count; v++) {
                b.publish(new Window(v));
                jitter((int) (v % 5) * 50);
              }
              b.close();
            });
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
          long lagged = 0;
          for (Observed o : seen) {
            assertThat(o.end).isIn(RelayErrorReason.SUBSCRIBER_LAGGED, RelayErrorReason.PUBLICATION_UNAVAILABLE);
            assertThat(o.values).isNotEmpty();
            for (int i = 1; i < o.values.size(); i++) {
              assertThat(o.values.get(i)).as("gap-free at %d", i).isEqualTo(o.values.get(i - 1) + 1);
            }
            if (o.end == RelayErrorReason.PUBLICATION_UNAVAILABLE) {
              assertThat(o.values.get(o.values.size() - 1)).isEqualTo((long) count);
            } else {
              lagged++;
            }
          }
          assertThat(b.stats().lagged()).isEqualTo(lagged);
        });
  }

  /** Not thread-safe: confined to the consuming thread; maps a window stream to its sequences. */
  private static final class SequenceView implements RelayStream<Long> {
    private final RelayStream<Window> s;

    SequenceView(RelayStream<Window> s) {
      this.s = s;
    }

    @Override
    public @Nullable Long poll() throws RelayException {
      Window w = s.poll();
      return w == null ? null : w.seq();
    }

    @Override
    public @Nullable Long poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException {
      Window w = s.poll(timeout, unit);
      return w == null ? null : w.seq();
    }

    @Override
    public void onAvailable(Runnable callback) {
      s.onAvailable(callback);
    }

    @Override
    public boolean isFinished() {
      return s.isFinished();
    }

    @Override
    public void close() {
      s.close();
    }
  }
}
