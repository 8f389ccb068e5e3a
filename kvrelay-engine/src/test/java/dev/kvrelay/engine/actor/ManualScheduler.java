package dev.kvrelay.engine.actor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** Not thread-safe: a deterministic test scheduler with a manual clock. */
final class ManualScheduler implements ActorScheduler {
  private record Timer(long at, Runnable task) {}

  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final List<Timer> timers = new ArrayList<>();
  private long now;
  int timersScheduled;

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    timersScheduled++;
    timers.add(new Timer(now + delayNanos, task));
  }

  /** Runs every ready task (and the tasks they submit). */
  void runReady() {
    Runnable t;
    while ((t = tasks.poll()) != null) {
      t.run();
    }
  }

  /** Moves the clock, fires due timers in order, runs ready tasks. */
  void advance(long nanos) {
    runReady();
    now += nanos;
    for (;;) {
      Timer due = null;
      for (Timer t : timers) {
        if (t.at() <= now && (due == null || t.at() < due.at())) {
          due = t;
        }
      }
      if (due == null) {
        break;
      }
      timers.remove(due);
      due.task().run();
      runReady();
    }
  }

  int pendingTimers() {
    return timers.size();
  }
}
