package dev.kvrelay.engine.stream;

import dev.kvrelay.engine.actor.ActorScheduler;
import java.util.ArrayList;
import java.util.List;

/** Not thread-safe: confined to the test thread; a deterministic scheduler with a manual nanosecond clock. */
final class ManualTimers implements ActorScheduler {
  /** Immutable: a timer due at {@code at}. */
  private record Timer(long at, long order, Runnable task) {}

  private final List<Timer> timers = new ArrayList<>();
  private long now;
  private long order;
  int scheduled;

  long now() {
    return now;
  }

  @Override
  public void execute(Runnable task) {
    task.run();
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    scheduled++;
    timers.add(new Timer(now + delayNanos, order++, task));
  }

  /** Advances to {@code t}, firing each due timer exactly at its deadline (the clock reads the deadline). */
  void advanceTo(long t) {
    for (;;) {
      Timer due = nextDue(t);
      if (due == null) {
        break;
      }
      timers.remove(due);
      now = Math.max(now, due.at());
      due.task().run();
    }
    now = t;
  }

  /** Jumps the clock to {@code t} first, then fires every timer due by then: all of them run late. */
  void jumpTo(long t) {
    now = t;
    for (;;) {
      Timer due = nextDue(t);
      if (due == null) {
        return;
      }
      timers.remove(due);
      due.task().run();
    }
  }

  private Timer nextDue(long t) {
    Timer due = null;
    for (Timer x : timers) {
      if (x.at() <= t && (due == null || x.at() < due.at() || (x.at() == due.at() && x.order() < due.order()))) {
        due = x;
      }
    }
    return due;
  }

  int pending() {
    return timers.size();
  }
}
