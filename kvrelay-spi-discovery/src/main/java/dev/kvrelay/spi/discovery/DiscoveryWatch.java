package dev.kvrelay.spi.discovery;

/**
 * Thread-safe: a running watch, which can be closed from any thread, including from inside a callback.
 */
public interface DiscoveryWatch extends AutoCloseable {

  /** The scope the watch covers. */
  DiscoveryScope scope();

  /** True until {@link #close()}. */
  boolean isOpen();

  /**
   * Stops delivery: once this returns (called from outside a callback), no further callback starts; a
   * callback in progress on another thread is waited for. Idempotent.
   */
  @Override
  void close();
}
