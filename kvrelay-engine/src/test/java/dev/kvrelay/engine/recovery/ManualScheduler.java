package dev.kvrelay.engine.recovery;

import dev.kvrelay.engine.actor.ActorScheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** Not thread-safe: confined to the test thread. A deterministic scheduler with a manual clock. */
final class ManualScheduler implements ActorScheduler {
  private record Timer(long at, long order, Runnable task) {}

  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final List<Timer> timers = new ArrayList<>();
  private long now;
  private long order;

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    timers.add(new Timer(now + delayNanos, order++, task));
  }

  long now() {
    return now;
  }

  /** Runs every ready task (and the tasks they submit). */
  void runReady() {
    Runnable t;
    while ((t = tasks.poll()) != null) {
      t.run();
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

  void advanceMs(long ms) {
    advance(ms * 1_000_000L);
  }

  int pendingTimers() {
    return timers.size();
  }
}
