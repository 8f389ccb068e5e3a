package dev.kvrelay.spi.discovery;

import java.lang.System.Logger.Level;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: one {@link InMemoryDiscovery} watch, delivering queued callbacks on its own daemon thread.
 * A delivery holds {@code deliveryLock} while it checks that the watch is open and runs the callback, so
 * {@link #close()} from another thread returns only once no callback can start.
 */
final class MemWatch implements DiscoveryWatch {
  private static final System.Logger LOG = System.getLogger(MemWatch.class.getName());

  private final DiscoveryScope scope;
  private final DiscoveryListener listener;
  private final ExecutorService executor;
  private final ReentrantLock deliveryLock = new ReentrantLock();
  private final Consumer<MemWatch> onClose;
  private volatile boolean open = true;
  private volatile @Nullable Thread deliveryThread;

  MemWatch(DiscoveryScope scope, DiscoveryListener listener, String threadName, Consumer<MemWatch> onClose) {
    this.scope = scope;
    this.listener = listener;
    this.onClose = onClose;
    this.executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      deliveryThread = t;
      return t;
    });
  }

  /** Queues a callback; ignored once closed. */
  void submit(Consumer<DiscoveryListener> call) {
    if (!open) {
      return;
    }
    try {
      executor.execute(() -> deliver(call));
    } catch (RejectedExecutionException e) {
      // closed concurrently: nothing more is delivered
    }
  }

  private void deliver(Consumer<DiscoveryListener> call) {
    deliveryLock.lock();
    try {
      if (!open) {
        return;
      }
      call.accept(listener);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "discovery listener threw; the event is dropped and the watch goes on", e);
    } finally {
      deliveryLock.unlock();
    }
  }

  @Override
  public DiscoveryScope scope() {
    return scope;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() {
    if (Thread.currentThread() == deliveryThread) {
      open = false;
    } else {
      deliveryLock.lock();
      try {
        open = false;
      } finally {
        deliveryLock.unlock();
      }
    }
    executor.shutdown();
    onClose.accept(this);
  }
}
