package dev.kvrelay.engine.actor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Not thread-safe: confined to the test thread (and the threads each test starts). The {@link SerialTask} contract. */
class SerialTaskTest {

  /** Thread-safe: an {@link ActorScheduler} whose tasks queue until the test runs them, one at a time. */
  static final class QueueScheduler implements ActorScheduler {
    final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    final AtomicInteger executes = new AtomicInteger();

    @Override
    public void execute(Runnable task) {
      executes.incrementAndGet();
      tasks.add(task);
    }

    @Override
    public void schedule(Runnable task, long delayNanos) {
      throw new AssertionError("a serial task never arms a timer");
    }

    boolean runOne() {
      Runnable t = tasks.poll();
      if (t == null) {
        return false;
      }
      t.run();
      return true;
    }

    int runAll() {
      int n = 0;
      while (runOne()) {
        if (++n > 1_000_000) {
          throw new AssertionError("task storm");
        }
      }
      return n;
    }
  }

  private static SerialTask task(ActorScheduler scheduler, SerialTask.Body body) {
    return new SerialTask(scheduler, body, e -> {
      throw new AssertionError("unexpected failure", e);
    });
  }

  @Test
  void signalsWhileScheduledAreAbsorbedAndNeverRunTheBodyInline() {
    QueueScheduler scheduler = new QueueScheduler();
    AtomicInteger runs = new AtomicInteger();
    SerialTask t = task(scheduler, () -> {
      runs.incrementAndGet();
      return false;
    });
    t.signal();
    t.signal();
    t.signal();
    assertThat(runs.get()).as("signal() never runs the body on the calling thread").isZero();
    assertThat(scheduler.executes.get()).as("one run scheduled for three signals of an idle task").isEqualTo(1);
    assertThat(scheduler.runAll()).isEqualTo(1);
    assertThat(runs.get()).isEqualTo(1);
    t.signal();
    assertThat(scheduler.runAll()).as("an idle task runs again on the next signal").isEqualTo(1);
    assertThat(runs.get()).isEqualTo(2);
  }

  @Test
  void aSignalDuringARunCausesExactlyOneMoreRun() {
    QueueScheduler scheduler = new QueueScheduler();
    AtomicInteger runs = new AtomicInteger();
    SerialTask[] self = new SerialTask[1];
    SerialTask t = task(scheduler, () -> {
      if (runs.incrementAndGet() == 1) {
        self[0].signal(); // the work arrived while the body runs: no lost wake-up
        self[0].signal(); // a second signal during the same run asks for nothing more
      }
      return false;
    });
    self[0] = t;
    t.signal();
    assertThat(scheduler.runAll()).isEqualTo(2);
    assertThat(runs.get()).as("the signal during the first run caused a second run, and only one").isEqualTo(2);
    assertThat(scheduler.executes.get()).isEqualTo(2);
  }

  @Test
  void aSignalFromAnotherThreadDuringARunIsNotLost() throws Exception {
    QueueScheduler scheduler = new QueueScheduler();
    ConcurrentLinkedQueue<Integer> work = new ConcurrentLinkedQueue<>();
    List<Integer> seen = new ArrayList<>();
    CountDownLatch inBody = new CountDownLatch(1);
    CountDownLatch published = new CountDownLatch(1);
    SerialTask t = task(scheduler, () -> {
      inBody.countDown();
      await(published);
      Integer w;
      while ((w = work.poll()) != null) {
        seen.add(w);
      }
      return false;
    });
    work.add(1);
    t.signal();
    Thread runner = new Thread(scheduler::runOne, "serial-task-runner");
    runner.start();
    await(inBody);
    work.add(2);
    t.signal(); // while the run is inside the body
    published.countDown();
    runner.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(runner.isAlive()).as("the first run ended within 10 s").isFalse();
    assertThat(scheduler.tasks).as("the signal during the run scheduled a second run").hasSize(1);
    work.add(3);
    scheduler.runAll();
    assertThat(seen).containsExactly(1, 2, 3);
  }

  @Test
  void twoSignallersOnAnIdleTaskScheduleExactlyOneRun() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 2_000; round++) {
        QueueScheduler scheduler = new QueueScheduler();
        AtomicInteger runs = new AtomicInteger();
        SerialTask t = task(scheduler, () -> {
          runs.incrementAndGet();
          return false;
        });
        CyclicBarrier start = new CyclicBarrier(2);
        Runnable signaller = () -> {
          await(start);
          t.signal();
        };
        Future<?> first = pool.submit(signaller);
        Future<?> second = pool.submit(signaller);
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        assertThat(scheduler.executes.get()).as("round %d: two signals on an idle task, runs scheduled", round)
            .isEqualTo(1);
        assertThat(scheduler.runAll()).isEqualTo(1);
        assertThat(runs.get()).as("round %d: body runs", round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentSignalsOnAMultiThreadedExecutorNeverOverlapAndLoseNoWork() throws Exception {
    ScheduledExecutorService executor = Executors.newScheduledThreadPool(3);
    try {
      ConcurrentLinkedQueue<Integer> work = new ConcurrentLinkedQueue<>();
      AtomicInteger inside = new AtomicInteger();
      AtomicInteger overlaps = new AtomicInteger();
      AtomicInteger consumed = new AtomicInteger();
      AtomicInteger runs = new AtomicInteger();
      SerialTask t = task(new ExecutorActorScheduler(executor), () -> {
        if (inside.getAndIncrement() != 0) {
          overlaps.incrementAndGet();
        }
        try {
          runs.incrementAndGet();
          for (int i = 0; i < 16; i++) {
            if (work.poll() == null) {
              return false;
            }
            consumed.incrementAndGet();
          }
          return true; // the batch is full: yield
        } finally {
          inside.decrementAndGet();
        }
      });
      int perThread = 20_000;
      CyclicBarrier start = new CyclicBarrier(2);
      Runnable signaller = () -> {
        await(start);
        for (int i = 0; i < perThread; i++) {
          work.add(i);
          t.signal();
        }
      };
      Thread a = new Thread(signaller, "signaller-a");
      Thread b = new Thread(signaller, "signaller-b");
      a.start();
      b.start();
      a.join(TimeUnit.SECONDS.toMillis(30));
      b.join(TimeUnit.SECONDS.toMillis(30));
      waitFor(() -> consumed.get() == 2 * perThread, "every published item consumed, got " + consumed.get());
      assertThat(overlaps.get()).as("runs that overlapped another run").isZero();
      assertThat(runs.get()).as("runs never exceed the signals plus the yields").isLessThanOrEqualTo(
          2 * perThread + 2 * perThread / 16 + 1);
      assertThat(t.failures()).isZero();
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void anExceptionGoesToTheHandlerAndTheCounterAndTheTaskKeepsWorking() {
    QueueScheduler scheduler = new QueueScheduler();
    List<RuntimeException> handled = new ArrayList<>();
    AtomicInteger runs = new AtomicInteger();
    IllegalStateException boom = new IllegalStateException("boom");
    SerialTask t = new SerialTask(scheduler, () -> {
      if (runs.incrementAndGet() == 1) {
        throw boom;
      }
      return false;
    }, handled::add);
    t.signal();
    assertThat(scheduler.runAll()).as("a failed run ends the run, it does not reschedule itself").isEqualTo(1);
    assertThat(handled).containsExactly(boom);
    assertThat(t.failures()).isEqualTo(1);
    t.signal();
    assertThat(scheduler.runAll()).as("the next signal still runs the body").isEqualTo(1);
    assertThat(runs.get()).isEqualTo(2);
    assertThat(t.failures()).isEqualTo(1);
  }

  @Test
  void aSignalDuringAFailingRunStillCausesTheNextRunAndAFailingHandlerIsSurvived() {
    QueueScheduler scheduler = new QueueScheduler();
    AtomicInteger runs = new AtomicInteger();
    SerialTask[] self = new SerialTask[1];
    SerialTask t = new SerialTask(scheduler, () -> {
      if (runs.incrementAndGet() == 1) {
        self[0].signal();
        throw new IllegalStateException("boom");
      }
      return false;
    }, e -> {
      throw new IllegalArgumentException("the handler fails too");
    });
    self[0] = t;
    t.signal();
    assertThat(scheduler.runAll()).isEqualTo(2);
    assertThat(runs.get()).isEqualTo(2);
    assertThat(t.failures()).isEqualTo(1);
  }

  @Test
  void aBodyWithWorkLeftYieldsBehindOtherTasksAndRunsAgain() {
    QueueScheduler scheduler = new QueueScheduler();
    List<String> order = new ArrayList<>();
    int[] left = {3};
    SerialTask t = task(scheduler, () -> {
      order.add("batch");
      return --left[0] > 0;
    });
    t.signal();
    scheduler.execute(() -> order.add("other"));
    assertThat(scheduler.runOne()).isTrue();
    assertThat(order).containsExactly("batch");
    assertThat(scheduler.tasks).as("the yielded run queued behind the other task").hasSize(2);
    t.signal(); // absorbed: the re-scheduled run is still to come
    assertThat(scheduler.tasks).hasSize(2);
    scheduler.runAll();
    assertThat(order).containsExactly("batch", "other", "batch", "batch");
    assertThat(scheduler.executes.get()).as("1 signal, the other task, 2 yields").isEqualTo(4);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("barrier", e);
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.onSpinWait();
    }
  }
}
