package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.actor.ManualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: confined to the test thread (the submitters it starts share only concurrent types). The
 * consumer's queue in front of a caller's executor: on a pool of four threads, tasks run one at a time, each
 * submitter's tasks in order, none lost; one that throws does not hold back the rest.
 */
class SerialisingSchedulerTest {
  private final ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(4);
  private final ConcurrentLinkedQueue<RuntimeException> errors = new ConcurrentLinkedQueue<>();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private SerialisingScheduler serialising() {
    return new SerialisingScheduler(new ExecutorActorScheduler(pool), errors::add);
  }

  @Test
  void aSecondTaskDoesNotStartWhileTheFirstRunsOnAFourThreadPool() throws Exception {
    assertThat(secondStartedDuringFirst(serialising())).as("serialised").isFalse();
    assertThat(secondStartedDuringFirst(new ExecutorActorScheduler(pool)))
        .as("the same probe sees the overlap the plain executor scheduler allows").isTrue();
  }

  /** Whether task 2, submitted while task 1 runs, starts before task 1 ends (task 1 waits up to 1 s for it). */
  private static boolean secondStartedDuringFirst(dev.kvrelay.engine.actor.ActorScheduler scheduler)
      throws InterruptedException {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch secondStarted = new CountDownLatch(1);
    CountDownLatch firstDone = new CountDownLatch(1);
    AtomicInteger overlapped = new AtomicInteger();
    scheduler.execute(() -> {
      firstRunning.countDown();
      try {
        if (secondStarted.await(1, TimeUnit.SECONDS)) {
          overlapped.set(1);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        firstDone.countDown();
      }
    });
    assertThat(firstRunning.await(30, TimeUnit.SECONDS)).as("task 1 started").isTrue();
    scheduler.execute(secondStarted::countDown);
    assertThat(firstDone.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(secondStarted.await(30, TimeUnit.SECONDS)).as("task 2 ran after all").isTrue();
    return overlapped.get() == 1;
  }

  @Test
  void tasksFromManyThreadsRunOneAtATimeInEachSubmittersOrderAndNoneIsLost() {
    qt().withExamples(20).forAll(integers().between(1, 4), integers().between(1, 400)).checkAssert(
        (submitters, perSubmitter) -> {
          SerialisingScheduler s = serialising();
          AtomicInteger active = new AtomicInteger();
          AtomicInteger maxActive = new AtomicInteger();
          List<List<Integer>> seen = new ArrayList<>();
          for (int i = 0; i < submitters; i++) {
            seen.add(new ArrayList<>()); // each list is written only by the serialised tasks
          }
          CountDownLatch all = new CountDownLatch(submitters * perSubmitter);
          List<Thread> threads = new ArrayList<>();
          for (int t = 0; t < submitters; t++) {
            int submitter = t;
            threads.add(new Thread(() -> {
              for (int k = 0; k < perSubmitter; k++) {
                int n = k;
                s.execute(() -> {
                  maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
                  seen.get(submitter).add(n);
                  active.decrementAndGet();
                  all.countDown();
                });
              }
            }));
          }
          threads.forEach(Thread::start);
          try {
            for (Thread th : threads) {
              th.join();
            }
            assertThat(all.await(30, TimeUnit.SECONDS)).as("every task ran").isTrue();
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
          assertThat(maxActive.get()).as("tasks running at once").isEqualTo(1);
          for (List<Integer> l : seen) {
            assertThat(l).as("one submitter's tasks, in its order").hasSize(perSubmitter).isSorted()
                .doesNotHaveDuplicates();
          }
          assertThat(s.pending()).isZero();
        });
  }

  @Test
  void aTaskThatThrowsGoesToTheHandlerAndTheNextTasksStillRun() {
    ManualScheduler manual = new ManualScheduler();
    SerialisingScheduler s = new SerialisingScheduler(manual, errors::add);
    List<String> ran = new ArrayList<>();
    s.execute(() -> ran.add("a"));
    s.execute(() -> {
      throw new IllegalStateException("bad task");
    });
    s.execute(() -> ran.add("c"));
    manual.runReady();
    assertThat(ran).containsExactly("a", "c");
    assertThat(errors).singleElement().extracting(Throwable::getMessage).isEqualTo("bad task");
  }

  @Test
  void aLongQueueYieldsTheThreadEveryBatchAndStillRunsEverything() {
    ManualScheduler manual = new ManualScheduler();
    AtomicInteger turns = new AtomicInteger();
    dev.kvrelay.engine.actor.ActorScheduler counting = new dev.kvrelay.engine.actor.ActorScheduler() {
      @Override
      public void execute(Runnable task) {
        turns.incrementAndGet();
        manual.execute(task);
      }

      @Override
      public void schedule(Runnable task, long delayNanos) {
        manual.schedule(task, delayNanos);
      }
    };
    SerialisingScheduler s = new SerialisingScheduler(counting, errors::add);
    AtomicInteger ran = new AtomicInteger();
    int tasks = SerialisingScheduler.BATCH * 3 + 5;
    for (int i = 0; i < tasks; i++) {
      s.execute(ran::incrementAndGet);
    }
    manual.runReady();
    assertThat(ran.get()).isEqualTo(tasks);
    assertThat(turns.get()).as("one turn per batch of %s", SerialisingScheduler.BATCH).isEqualTo(4);
  }

  @Test
  void aTimerJoinsTheQueueWhenDue() {
    ManualScheduler manual = new ManualScheduler();
    SerialisingScheduler s = new SerialisingScheduler(manual, errors::add);
    List<String> ran = new ArrayList<>();
    s.schedule(() -> ran.add("timer"), TimeUnit.MILLISECONDS.toNanos(5));
    s.execute(() -> ran.add("now"));
    manual.runReady();
    assertThat(ran).containsExactly("now");
    manual.advanceMs(5);
    assertThat(ran).containsExactly("now", "timer");
  }
}
