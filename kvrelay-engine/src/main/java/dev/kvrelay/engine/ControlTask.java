package dev.kvrelay.engine;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the engine's control task: one daemon thread ({@code kvrelay-control}) that runs the relay host's
 * work in submission order, its timers, and the engine's terminal outcome: an unexpected exception in a task is a
 * terminal host failure (producer.md §2.6) that completes {@link #terminated()} exceptionally.
 */
final class ControlTask implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(RelayEngine.class);

  private final ScheduledExecutorService executor;
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private volatile boolean closing;

  ControlTask() {
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kvrelay-control");
      t.setDaemon(true);
      return t;
    });
  }

  /** Runs {@code task} on the control thread (dropped after {@link #shutdownNow()}). */
  @Override
  public void execute(Runnable task) {
    try {
      executor.execute(() -> guarded(task));
    } catch (RejectedExecutionException e) {
      LOG.debug("control task dropped: relay stopped");
    }
  }

  /** Runs {@code task} on the control thread after {@code delayMs} (dropped after {@link #shutdownNow()}). */
  void after(long delayMs, Runnable task) {
    try {
      // The future is not needed: guarded() turns what the task throws into fail(), and shutdownNow() drops it.
      ScheduledFuture<?> unused = executor.schedule(() -> guarded(task), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("control timer dropped: relay stopped");
    }
  }

  /** Runs {@code task} on the control thread every {@code periodMs}, the first time after one period. */
  ScheduledFuture<?> every(long periodMs, Runnable task) {
    return executor.scheduleAtFixedRate(() -> guarded(task), periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Runs {@code task} on the control thread for a caller that waits on its result (stats, sync, shutdown): its
   * exception goes to the future, not to {@link #fail}.
   *
   * @throws RejectedExecutionException after {@link #shutdownNow()}
   */
  <T> Future<T> submit(Callable<T> task) {
    return executor.submit(task);
  }

  /** Ends the engine with a terminal host failure: {@link #terminated()} completes exceptionally with {@code cause}. */
  void fail(Throwable cause) {
    LOG.error("relay host failed", cause);
    terminated.completeExceptionally(cause);
  }

  /** Completes normally after close, exceptionally on a terminal host failure. */
  CompletableFuture<Void> terminated() {
    return terminated;
  }

  /** Marks the engine as closing; true only for the first call (the one that then closes it). */
  boolean beginClose() {
    synchronized (this) {
      if (closing) {
        return false;
      }
      closing = true;
      return true;
    }
  }

  /** True once close has begun (the root cancel). */
  boolean closing() {
    return closing;
  }

  /** Stops the control thread; queued and later tasks are dropped. */
  void shutdownNow() {
    executor.shutdownNow();
  }

  private void guarded(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      // An unexpected exception in the control task is a terminal host failure (producer.md §2.6).
      fail(e);
    }
  }
}
