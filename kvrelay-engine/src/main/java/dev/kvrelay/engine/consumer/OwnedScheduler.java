package dev.kvrelay.engine.consumer;

import dev.kvrelay.engine.actor.ActorScheduler;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe: the scheduler over the one daemon thread a {@link RelayConsumer} owns when the caller gave no
 * executor; work offered after {@link #shutdown()} (late stream callbacks, timers) is dropped without a warning,
 * since nothing is left to do.
 */
final class OwnedScheduler implements ActorScheduler {
  private final ScheduledThreadPoolExecutor executor;

  OwnedScheduler(String subscriberBase) {
    String name = "kvrelay-consumer-" + subscriberBase;
    this.executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    executor.setRemoveOnCancelPolicy(true);
  }

  @Override
  public void execute(Runnable task) {
    if (!executor.isShutdown()) {
      try {
        executor.execute(task);
      } catch (RejectedExecutionException e) {
        // closed concurrently: the close task already dropped all state
      }
    }
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    if (!executor.isShutdown()) {
      try {
        // The future is not needed: a stale timer is harmless, shutdown() drops the pending ones, and what a task
        // throws stays in its future as it does for execute() (a zero-delay schedule on this executor).
        ScheduledFuture<?> unused = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // closed concurrently
      }
    }
  }

  /** Stops the thread once the tasks already queued ran; pending timers are dropped. */
  void shutdown() {
    executor.shutdown();
  }
}
