package dev.kvrelay.spi.discovery;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the delivery half every backend's watch shares — one daemon thread per watch that runs queued work
 * and listener callbacks in order, and the close protocol of {@link DiscoveryWatch#close()}. A delivery holds {@code
 * deliveryLock} while it checks that the watch is open and runs the callback, so {@link #close()} from another thread
 * returns only once no callback can start; from inside a callback it just marks the watch closed.
 *
 * <p>Subclasses queue listener callbacks with {@link #submit}, or run their own state machine on the delivery thread
 * with {@link #enqueue} / {@link #schedule} and call {@link #deliver} from there; state touched only by such tasks is
 * confined to the delivery thread. A callback that throws is counted ({@link #listenerFailures()}), reported to
 * {@link #listenerFailed} (which logs it by default) and dropped; the watch goes on. {@link #onClosed()} releases the
 * subclass's resources once, when the watch closes.
 */
public abstract class QueuedDiscoveryWatch implements DiscoveryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(QueuedDiscoveryWatch.class);

  private final DiscoveryScope scope;
  private final DiscoveryListener listener;
  private final ScheduledThreadPoolExecutor executor;
  private final ReentrantLock deliveryLock = new ReentrantLock();
  private final AtomicLong listenerFailures = new AtomicLong();
  private volatile boolean open = true;
  private volatile @Nullable Thread deliveryThread;

  /** A watch of {@code scope} delivering to {@code listener} on a daemon thread named {@code threadName}. */
  protected QueuedDiscoveryWatch(DiscoveryScope scope, DiscoveryListener listener, String threadName) {
    this.scope = scope;
    this.listener = listener;
    this.executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      deliveryThread = t;
      return t;
    });
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Queues a listener callback; ignored once closed. */
  protected final void submit(Consumer<DiscoveryListener> call) {
    enqueue(() -> deliver(call));
  }

  /** Queues a task to run on the delivery thread; ignored once closed. */
  protected final void enqueue(Runnable task) {
    if (!open) {
      return;
    }
    try {
      executor.execute(guarded(task));
    } catch (RejectedExecutionException e) {
      // closed concurrently: nothing more runs
    }
  }

  /**
   * Queues a clean-up task on the delivery thread even though the watch is closing (from {@link #onClosed()}: it runs
   * after any task already queued, before the thread ends); ignored once the thread is shut down.
   */
  protected final void enqueueCleanup(Runnable task) {
    try {
      executor.execute(guarded(task));
    } catch (RejectedExecutionException e) {
      // already shut down
    }
  }

  /** Runs {@code task} on the delivery thread after {@code delayMs}; ignored once closed. */
  protected final void schedule(Runnable task, long delayMs) {
    try {
      // The future is not needed: the guarded task logs its own failure, and close() drops it (shutdown policy).
      ScheduledFuture<?> unused = executor.schedule(guarded(task), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed concurrently
    }
  }

  /**
   * Submits a task to the delivery thread and returns its future (for a start-up step the caller waits for).
   *
   * @throws RejectedExecutionException if the watch is closed
   */
  protected final <T> java.util.concurrent.Future<T> call(java.util.concurrent.Callable<T> task) {
    return executor.submit(task);
  }

  /**
   * The task, logging what it throws: the executor would otherwise keep the exception in a future nobody reads.
   */
  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.warn("discovery watch task threw; the task is dropped and the watch goes on", e);
      }
    };
  }

  /** Runs a listener callback now, on the calling (delivery) thread, unless the watch is closed. */
  protected final void deliver(Consumer<DiscoveryListener> call) {
    deliveryLock.lock();
    try {
      if (!open) {
        return;
      }
      call.accept(listener);
    } catch (RuntimeException e) {
      listenerFailures.incrementAndGet();
      listenerFailed(e);
    } finally {
      deliveryLock.unlock();
    }
  }

  /** A listener callback threw (already counted); the default logs it. Runs on the delivery thread. */
  protected void listenerFailed(RuntimeException e) {
    LOG.warn("discovery listener threw; the callback is dropped and the watch goes on", e);
  }

  /** Releases the subclass's resources; called once, by the first {@link #close()}, after delivery stopped. */
  protected void onClosed() {}

  /** How many listener callbacks threw (each was dropped). */
  public final long listenerFailures() {
    return listenerFailures.get();
  }

  @Override
  public final DiscoveryScope scope() {
    return scope;
  }

  @Override
  public final boolean isOpen() {
    return open;
  }

  /** True on this watch's delivery thread. */
  protected final boolean onDeliveryThread() {
    return Thread.currentThread() == deliveryThread;
  }

  @Override
  public final void close() {
    boolean wasOpen;
    if (onDeliveryThread()) {
      wasOpen = open;
      open = false;
    } else {
      deliveryLock.lock();
      try {
        wasOpen = open;
        open = false;
      } finally {
        deliveryLock.unlock();
      }
    }
    if (wasOpen) {
      onClosed();
    }
    executor.shutdown();
  }
}
