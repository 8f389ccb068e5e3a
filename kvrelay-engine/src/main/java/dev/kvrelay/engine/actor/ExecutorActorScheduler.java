package dev.kvrelay.engine.actor;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the production {@link ActorScheduler} over a {@link ScheduledExecutorService}, handing each task
 * straight to the executor. It does not serialise: on a pool of several threads two tasks may run at once, so a
 * user whose state is confined to one task runs all of it through one {@link SerialTask} (the pool actor does),
 * or queues its tasks in front of this scheduler (the consumer does). A task refused because the executor is
 * shutting down is logged and dropped.
 */
public final class ExecutorActorScheduler implements ActorScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorActorScheduler.class);

  private final ScheduledExecutorService executor;

  /** A scheduler running on {@code executor}; its owner shuts it down. */
  public ExecutorActorScheduler(ScheduledExecutorService executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  @Override
  public void execute(Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      LOG.warn("task refused: executor shut down", e);
    }
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    try {
      // The future is not needed: a stale timer is harmless (never cancelled), and what a task throws stays in
      // its future as it does for execute() (a ScheduledThreadPoolExecutor's execute is a zero-delay schedule).
      ScheduledFuture<?> unused = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.warn("timer refused: executor shut down", e);
    }
  }
}
