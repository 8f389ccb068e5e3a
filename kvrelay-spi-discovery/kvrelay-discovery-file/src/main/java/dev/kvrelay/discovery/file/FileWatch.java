package dev.kvrelay.discovery.file;

import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.QueuedDiscoveryWatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: one {@link FileDiscovery} watch, delivering queued callbacks in order on its own daemon thread (the
 * SPI's shared {@link QueuedDiscoveryWatch} delivery); a listener failure also counts in the backend's stats.
 */
final class FileWatch extends QueuedDiscoveryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(FileWatch.class);

  private final Consumer<FileWatch> onClose;
  private final AtomicLong listenerFailures;

  FileWatch(DiscoveryScope scope, DiscoveryListener listener, String threadName, Consumer<FileWatch> onClose,
      AtomicLong listenerFailures) {
    super(scope, listener, threadName);
    this.onClose = onClose;
    this.listenerFailures = listenerFailures;
  }

  /** Queues a callback; ignored once closed. */
  void post(Consumer<DiscoveryListener> call) {
    submit(call);
  }

  @Override
  protected void listenerFailed(RuntimeException e) {
    listenerFailures.incrementAndGet();
    LOG.warn("file discovery listener threw; the event is dropped for it and the watch goes on", e);
  }

  @Override
  protected void onClosed() {
    onClose.accept(this);
  }
}
