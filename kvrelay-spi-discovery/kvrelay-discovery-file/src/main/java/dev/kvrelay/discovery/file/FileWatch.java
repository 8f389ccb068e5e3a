package dev.kvrelay.discovery.file;

import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: one {@link FileDiscovery} watch, delivering queued callbacks in order on its own daemon thread. A
 * delivery holds {@code deliveryLock} while it checks that the watch is open and runs the callback, so {@link
 * #close()} from another thread returns only once no callback can start.
 */
final class FileWatch implements DiscoveryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(FileWatch.class);

  private final DiscoveryScope scope;
  private final DiscoveryListener listener;
  private final ExecutorService executor;
  private final ReentrantLock deliveryLock = new ReentrantLock();
  private final Consumer<FileWatch> onClose;
  private final AtomicLong listenerFailures;
  private volatile boolean open = true;
  private volatile @Nullable Thread deliveryThread;

  FileWatch(DiscoveryScope scope, DiscoveryListener listener, String threadName, Consumer<FileWatch> onClose,
      AtomicLong listenerFailures) {
    this.scope = scope;
    this.listener = listener;
    this.onClose = onClose;
    this.listenerFailures = listenerFailures;
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
      listenerFailures.incrementAndGet();
      LOG.warn("file discovery listener threw; the event is dropped for it and the watch goes on", e);
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
