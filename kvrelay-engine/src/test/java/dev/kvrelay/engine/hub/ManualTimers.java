package dev.kvrelay.engine.hub;

import dev.kvrelay.engine.actor.ActorScheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** Not thread-safe: a deterministic scheduler with a manual clock (confined to the test thread). */
final class ManualTimers implements ActorScheduler {
  private record Timer(long at, Runnable task) {}

  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final List<Timer> timers = new ArrayList<>();
  private long now = 1_000_000_000L;

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    timers.add(new Timer(now + delayNanos, task));
  }

  long now() {
    return now;
  }

  void runReady() {
    Runnable t;
    while ((t = tasks.poll()) != null) {
      t.run();
    }
  }

  /** Moves the clock, firing due timers in time order. */
  void advanceMillis(long ms) {
    long target = now + ms * 1_000_000L;
    for (;;) {
      runReady();
      Timer due = null;
      for (Timer t : timers) {
        if (t.at() <= target && (due == null || t.at() < due.at())) {
          due = t;
        }
      }
      if (due == null) {
        break;
      }
      timers.remove(due);
      now = Math.max(now, due.at());
      due.task().run();
    }
    now = target;
    runReady();
  }

  int pendingTimers() {
    return timers.size();
  }
}
