package dev.kvrelay.benchmarks;

import dev.kvrelay.engine.actor.ActorScheduler;
import java.util.ArrayDeque;

/**
 * Not thread-safe: confined to the benchmark thread. An {@link ActorScheduler} whose tasks run on the thread
 * that calls {@link #runQueued()} (the benchmark drains it right after each submission, so the pool actor
 * runs inline without ever running re-entrantly inside {@code submit}); timers are ignored, so the actor
 * publishes only at its threshold and on Flush, and the hub never sees a heartbeat or progress tick.
 */
final class InlineActorScheduler implements ActorScheduler {
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private long ignoredTimers;

  @Override
  public void execute(Runnable task) {
    queue.add(task);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    ignoredTimers++;
  }

  /** Runs every queued task, including tasks queued meanwhile. */
  void runQueued() {
    Runnable task;
    while ((task = queue.poll()) != null) {
      task.run();
    }
  }

  /** Timers dropped so far. */
  long ignoredTimers() {
    return ignoredTimers;
  }
}
