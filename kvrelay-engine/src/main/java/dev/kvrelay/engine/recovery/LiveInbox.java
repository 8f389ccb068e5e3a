package dev.kvrelay.engine.recovery;

import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe for many producers and one consumer (lock-free, no allocation per offer): the bounded
 * ring that carries live events from delivery threads to the recovery's serial task. Slot sequence
 * numbers (a bounded MPMC-style ring, single consumer) publish each written pair.
 */
final class LiveInbox {
  private final int mask;
  private final AtomicLongArray sequence;
  private final @Nullable EventEnvelope[] envelopes;
  private final @Nullable RouterEvent[] events;
  private final AtomicLong tail = new AtomicLong();
  /** Consumer-only (visibility across pool threads via the serial task's hand-off flag). */
  private volatile long head;
  private @Nullable EventEnvelope polledEnvelope;
  private @Nullable RouterEvent polledEvent;

  LiveInbox(int capacityPowerOfTwo) {
    if (Integer.bitCount(capacityPowerOfTwo) != 1) {
      throw new IllegalArgumentException("capacity must be a power of two: " + capacityPowerOfTwo);
    }
    mask = capacityPowerOfTwo - 1;
    sequence = new AtomicLongArray(capacityPowerOfTwo);
    for (int i = 0; i < capacityPowerOfTwo; i++) {
      sequence.set(i, i);
    }
    envelopes = new EventEnvelope[capacityPowerOfTwo];
    events = new RouterEvent[capacityPowerOfTwo];
  }

  /** Adds one pair; false if the ring is full. Any thread. */
  boolean offer(EventEnvelope envelope, RouterEvent event) {
    for (;;) {
      long t = tail.get();
      int idx = (int) (t & mask);
      long s = sequence.get(idx);
      if (s == t) {
        if (tail.compareAndSet(t, t + 1)) {
          envelopes[idx] = envelope;
          events[idx] = event;
          sequence.set(idx, t + 1);
          return true;
        }
      } else if (s < t) {
        return false;
      }
    }
  }

  /** Takes the oldest pair into {@link #envelope()} / {@link #event()}; false if empty. Consumer only. */
  boolean poll() {
    long h = head; // read once, written once below: the consumer is its only writer
    int idx = (int) (h & mask);
    if (sequence.get(idx) != h + 1) {
      return false;
    }
    polledEnvelope = envelopes[idx];
    polledEvent = events[idx];
    envelopes[idx] = null;
    events[idx] = null;
    sequence.set(idx, h + mask + 1);
    head = h + 1;
    return true;
  }

  EventEnvelope envelope() {
    EventEnvelope e = polledEnvelope;
    if (e == null) {
      throw new IllegalStateException("nothing polled");
    }
    return e;
  }

  RouterEvent event() {
    RouterEvent e = polledEvent;
    if (e == null) {
      throw new IllegalStateException("nothing polled");
    }
    return e;
  }
}
