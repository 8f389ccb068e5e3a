package dev.kvrelay.engine.recovery;

import dev.kvrelay.spi.eventplane.RouterEvent;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the recovery's serial task, except {@link #size()}, which any thread may read
 * (stats). A rank's bounded FIFO of buffered live events; adding to a full buffer drops the oldest.
 */
final class EventBuffer {
  private final @Nullable RouterEvent[] ring;
  private int head;
  /** Written by the serial task only; volatile for readers of {@link #size()} on other threads. */
  private volatile int size;

  EventBuffer(int capacity) {
    ring = new RouterEvent[capacity];
  }

  /** Appends {@code e}; true if the oldest event had to be dropped. */
  boolean add(RouterEvent e) {
    int n = size; // read once, written once below: the serial task is its only writer
    boolean dropped = false;
    if (n == ring.length) {
      ring[head] = null;
      head = (head + 1) % ring.length;
      n--;
      dropped = true;
    }
    ring[(head + n) % ring.length] = e;
    size = n + 1;
    return dropped;
  }

  /** The oldest event, not removed. */
  RouterEvent peek() {
    RouterEvent e = ring[head];
    if (size == 0 || e == null) {
      throw new IllegalStateException("empty buffer");
    }
    return e;
  }

  /** Removes and returns the oldest event. */
  RouterEvent poll() {
    int n = size; // read once, written once below: the serial task is its only writer
    RouterEvent e = ring[head];
    if (n == 0 || e == null) {
      throw new IllegalStateException("empty buffer");
    }
    ring[head] = null;
    head = (head + 1) % ring.length;
    size = n - 1;
    return e;
  }

  int size() {
    return size;
  }

  /** Removes the events with an id ≤ {@code eventId} (unsigned), keeping the others in order; returns how many. */
  int removeUpTo(long eventId) {
    int removed = 0;
    for (int n = size; n > 0; n--) {
      RouterEvent e = poll();
      if (Long.compareUnsigned(e.eventId(), eventId) <= 0) {
        removed++;
      } else {
        add(e);
      }
    }
    return removed;
  }

  /** Drops everything; returns how many events were dropped. */
  int clear() {
    int n = size;
    while (size > 0) {
      poll();
    }
    head = 0;
    return n;
  }
}
