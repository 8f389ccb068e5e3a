package dev.kvrelay.engine.view;

import dev.kvrelay.engine.actor.ActorScheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** Not thread-safe: confined to the test thread. A deterministic scheduler with a manual nanosecond clock. */
final class ManualActorScheduler implements ActorScheduler {
  private record Timer(long at, long order, Runnable task) {}

  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final List<Timer> timers = new ArrayList<>();
  private long now = 1_000_000_000L;
  private long order;

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    timers.add(new Timer(now + delayNanos, order++, task));
  }

  long nanoTime() {
    return now;
  }

  /** Wall clock in µs: an arbitrary epoch offset plus the manual clock. */
  long epochMicros() {
    return 1_700_000_000_000_000L + now / 1_000L;
  }

  /** Runs every ready task (and the tasks they submit). */
  void runReady() {
    Runnable t;
    int guard = 0;
    while ((t = tasks.poll()) != null) {
      t.run();
      if (++guard > 10_000_000) {
        throw new AssertionError("task storm");
      }
    }
  }

  /** Moves the clock by {@code nanos}, firing due timers in time order and running ready tasks. */
  void advance(long nanos) {
    runReady();
    long end = now + nanos;
    for (;;) {
      Timer due = null;
      for (Timer t : timers) {
        if (t.at() <= end && (due == null || t.at() < due.at() || (t.at() == due.at() && t.order() < due.order()))) {
          due = t;
        }
      }
      if (due == null) {
        break;
      }
      timers.remove(due);
      now = Math.max(now, due.at());
      due.task().run();
      runReady();
    }
    now = end;
  }

  int pendingTasks() {
    return tasks.size();
  }
}
