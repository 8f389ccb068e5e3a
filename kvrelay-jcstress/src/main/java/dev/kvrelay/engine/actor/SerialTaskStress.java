package dev.kvrelay.engine.actor;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Not thread-safe by itself (each nested class is one jcstress state): the {@link SerialTask} state machine
 * (idle → scheduled → running → signalled), the engine's one "schedule once, then drain" hand-off, between
 * signalling threads and the task's runs on a {@link PoolActorStress.HandOffScheduler} (the actors double as the
 * executor's threads, so only the task's state, not the executor, keeps the runs serial).
 */
public final class SerialTaskStress {
  private SerialTaskStress() {}

  /**
   * Not thread-safe (a jcstress state): a work queue drained by a serial task's body, which records whether two runs
   * were inside it at once. r1: items drained; r2: overlapping runs; r3: runs scheduled.
   */
  abstract static class Drained {
    final PoolActorStress.HandOffScheduler scheduler = new PoolActorStress.HandOffScheduler();
    final ConcurrentLinkedQueue<Integer> work = new ConcurrentLinkedQueue<>();
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    final AtomicInteger drained = new AtomicInteger();
    final SerialTask task = new SerialTask(scheduler, this::drain, e -> {
      throw new AssertionError("the body never throws", e);
    });

    private boolean drain() {
      if (inside.getAndIncrement() != 0) {
        overlaps.incrementAndGet();
      }
      try {
        while (work.poll() != null) {
          drained.incrementAndGet();
        }
        return false;
      } finally {
        inside.decrementAndGet();
      }
    }

    void publishAndSignal(int item) {
      work.add(item);
      task.signal();
    }

    void quiesce(III_Result r) {
      scheduler.runAll();
      r.r1 = drained.get();
      r.r2 = overlaps.get();
      r.r3 = scheduler.executes.get();
    }
  }

  /**
   * Not thread-safe (a jcstress state): one item is published and its run scheduled; one thread runs that run while
   * the other publishes a second item, signals, and then also takes a run from the executor. Whether the signal came
   * while the run was only scheduled (absorbed: one run drains both), while it ran (signalled: exactly one more run)
   * or after it ended (idle: a new run), both items are drained and the runs never overlap. A second item left with
   * no run scheduled is the lost wake-up.
   */
  @JCStressTest
  @Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "one run drained both items (the signal was absorbed)")
  @Outcome(id = "2, 0, 2", expect = ACCEPTABLE, desc = "the signal during or after the run scheduled a second run")
  @Outcome(id = "1, .*", expect = FORBIDDEN, desc = "the second item stranded (lost wake-up)")
  @Outcome(expect = FORBIDDEN, desc = "two runs overlapped, or a spurious extra run")
  @State
  public static class SignalWhileRunningExits extends Drained {
    {
      publishAndSignal(1);
    }

    @Actor
    public void executorThread() {
      scheduler.runOne();
    }

    @Actor
    public void signallerThenExecutorThread() {
      publishAndSignal(2);
      scheduler.runOne();
    }

    @Arbiter
    public void arbiter(III_Result r) {
      quiesce(r);
    }
  }

  /**
   * Not thread-safe (a jcstress state): two threads publish an item each and signal an idle task at once, then each
   * takes a run from the executor. One signal wins the idle → scheduled transition; the other is absorbed (one run)
   * or comes while the run runs (one more run, after it); never two runs at once, never an item stranded.
   */
  @JCStressTest
  @Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "one run drained both items")
  @Outcome(id = "2, 0, 2", expect = ACCEPTABLE, desc = "the second signal came while the first run ran")
  @Outcome(id = "[01], .*", expect = FORBIDDEN, desc = "an item stranded (lost wake-up)")
  @Outcome(expect = FORBIDDEN, desc = "two runs overlapped, or a spurious extra run")
  @State
  public static class TwoSignallersOnIdleTask extends Drained {
    @Actor
    public void signallerA() {
      publishAndSignal(1);
      scheduler.runOne();
    }

    @Actor
    public void signallerB() {
      publishAndSignal(2);
      scheduler.runOne();
    }

    @Arbiter
    public void arbiter(III_Result r) {
      quiesce(r);
    }
  }
}
