package dev.kvrelay.spi.discovery;

import java.util.function.Consumer;

/**
 * Thread-safe: one {@link InMemoryDiscovery} watch, delivering queued callbacks on its own daemon thread (the shared
 * delivery of {@link QueuedDiscoveryWatch}).
 */
final class MemWatch extends QueuedDiscoveryWatch {
  private final Consumer<MemWatch> onClose;

  MemWatch(DiscoveryScope scope, DiscoveryListener listener, String threadName, Consumer<MemWatch> onClose) {
    super(scope, listener, threadName);
    this.onClose = onClose;
  }

  /** Queues a callback; ignored once closed. */
  void post(Consumer<DiscoveryListener> call) {
    submit(call);
  }

  @Override
  protected void onClosed() {
    onClose.accept(this);
  }
}
