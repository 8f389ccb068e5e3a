package dev.kvrelay.engine.actor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Not thread-safe: confined to the test thread. The engine tests' one deterministic {@link ActorScheduler}: tasks
 * queue until {@link #runReady()}, timers fire in deadline order (first scheduled first on ties) while the manual
 * nanosecond clock reads each timer's deadline, and ready tasks run between timers.
 */
public final class ManualScheduler implements ActorScheduler {
  /** Immutable: a timer due at {@code at}. */
  private record Timer(long at, long order, Runnable task) {}

  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final List<Timer> timers = new ArrayList<>();
  private long now;
  private long order;
  private int timersScheduled;

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    timersScheduled++;
    timers.add(new Timer(now + delayNanos, order++, task));
  }

  /** The manual clock in nanoseconds. */
  public long now() {
    return now;
  }

  /** Wall clock in µs: an arbitrary epoch offset plus the manual clock. */
  public long epochMicros() {
    return 1_700_000_000_000_000L + now / 1_000L;
  }

  /** Runs every ready task (and the tasks they submit). */
  public void runReady() {
    Runnable t;
    int guard = 0;
    while ((t = tasks.poll()) != null) {
      t.run();
      if (++guard > 10_000_000) {
        throw new AssertionError("task storm");
      }
    }
  }

  /** Moves the clock by {@code nanos}, firing due timers in deadline order and running ready tasks. */
  public void advance(long nanos) {
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

  /** {@link #advance} by {@code ms} milliseconds. */
  public void advanceMs(long ms) {
    advance(ms * 1_000_000L);
  }

  /** Timers scheduled so far (fired or not). */
  public int timersScheduled() {
    return timersScheduled;
  }

  /** Timers not yet fired. */
  public int pendingTimers() {
    return timers.size();
  }

  /** Tasks queued and not yet run. */
  public int pendingTasks() {
    return tasks.size();
  }
}
