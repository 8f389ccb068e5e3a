package dev.kvrelay.engine.stream;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Thread-safe: one admitted stream's hold on its {@link AdmissionLimit}; {@link #close()} gives the permit
 * back exactly once, however often and from whichever threads it is called.
 */
public final class AdmissionPermit implements AutoCloseable {
  private final AdmissionLimit limit;
  private final AtomicBoolean released = new AtomicBoolean();

  AdmissionPermit(AdmissionLimit limit) {
    this.limit = limit;
  }

  /** Releases the permit; idempotent. */
  @Override
  public void close() {
    if (released.compareAndSet(false, true)) {
      limit.release();
    }
  }

  /** True once {@link #close()} has released the permit. */
  public boolean isReleased() {
    return released.get();
  }

  @Override
  public String toString() {
    return "AdmissionPermit[" + limit.name() + (released.get() ? ", released]" : "]");
  }
}
