package dev.kvrelay.engine.recovery;

import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Thread-safe: one recovery query in flight; releases its relay-wide permit (and leaves the recovery's in-flight
 * set) exactly once, from any thread.
 */
final class Attempt {
  final Slot slot;
  final long epoch;
  private final Set<Attempt> inFlight;
  private final Semaphore permits;
  private final AtomicBoolean released = new AtomicBoolean();

  Attempt(Slot slot, long epoch, Set<Attempt> inFlight, Semaphore permits) {
    this.slot = slot;
    this.epoch = epoch;
    this.inFlight = inFlight;
    this.permits = permits;
  }

  void release() {
    if (released.compareAndSet(false, true)) {
      inFlight.remove(this);
      permits.release();
    }
  }
}
