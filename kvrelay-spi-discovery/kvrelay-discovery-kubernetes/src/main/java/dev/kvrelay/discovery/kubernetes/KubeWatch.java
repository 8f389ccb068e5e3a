package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.QueuedDiscoveryWatch;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: one watch of a {@link KubernetesDiscovery}, delivering queued callbacks on its own daemon thread (the
 * SPI's shared {@link QueuedDiscoveryWatch} delivery). {@link #known} and {@link #snapshotSent} are confined to the
 * backend's state thread (what this watch has been told).
 */
final class KubeWatch extends QueuedDiscoveryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(KubeWatch.class);

  private final Consumer<KubeWatch> onClose;
  private final AtomicLong backendListenerFailures;

  /** State thread only: the records this watch has been told about. */
  final Map<DiscoveryKey, DiscoveryRecord> known = new HashMap<>();
  /** State thread only: true once the snapshot is queued. */
  boolean snapshotSent;

  /**
   * A watch delivering on a thread named {@code threadName}; {@code backendListenerFailures} counts its listener's
   * failures in the backend's stats (this watch's own count is {@link #listenerFailures()}).
   */
  KubeWatch(DiscoveryScope scope, DiscoveryListener listener, String threadName, Consumer<KubeWatch> onClose,
      AtomicLong backendListenerFailures) {
    super(scope, listener, threadName);
    this.onClose = onClose;
    this.backendListenerFailures = backendListenerFailures;
  }

  /** Queues a callback; ignored once closed. */
  void post(Consumer<DiscoveryListener> call) {
    submit(call);
  }

  @Override
  protected void listenerFailed(RuntimeException e) {
    backendListenerFailures.incrementAndGet();
    LOG.warn("discovery listener threw; the callback is dropped and the watch goes on", e);
  }

  @Override
  protected void onClosed() {
    onClose.accept(this);
  }
}
