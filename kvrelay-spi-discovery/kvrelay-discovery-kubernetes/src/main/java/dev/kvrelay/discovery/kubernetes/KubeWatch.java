package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: one watch of a {@link KubernetesDiscovery}, delivering queued callbacks on its own daemon
 * thread. {@link #known} and {@link #snapshotSent} are confined to the backend's state thread (what this
 * watch has been told); a delivery holds {@code deliveryLock} while it checks that the watch is open and
 * runs the callback, so {@link #close()} from another thread returns only once no callback can start.
 */
final class KubeWatch implements DiscoveryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(KubeWatch.class);

  private final DiscoveryScope scope;
  private final DiscoveryListener listener;
  private final ExecutorService executor;
  private final ReentrantLock deliveryLock = new ReentrantLock();
  private final Consumer<KubeWatch> onClose;
  private volatile boolean open = true;
  private volatile @Nullable Thread deliveryThread;

  /** State thread only: the records this watch has been told about. */
  final Map<DiscoveryKey, DiscoveryRecord> known = new HashMap<>();
  /** State thread only: true once the snapshot is queued. */
  boolean snapshotSent;

  KubeWatch(DiscoveryScope scope, DiscoveryListener listener, String threadName, Consumer<KubeWatch> onClose) {
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
      if (open) {
        call.accept(listener);
      }
    } catch (RuntimeException e) {
      LOG.warn("discovery listener threw; the callback is dropped and the watch goes on", e);
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
