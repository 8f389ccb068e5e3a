package dev.kvrelay.engine.hub;

import java.util.ArrayDeque;

/**
 * Thread-safe (guarded by its own monitor): the asynchronous snapshot-encoding semaphore
 * (PUBLICATION_ENCODING_CONCURRENCY). A stream either gets a permit at once or waits in FIFO order; nobody
 * blocks. Grants are delivered without the monitor held.
 */
final class EncodingPermits {
  private final ArrayDeque<PoolStream> waiters = new ArrayDeque<>();
  private int available;

  EncodingPermits(int permits) {
    this.available = permits;
  }

  /** Takes a permit for {@code stream} now (true) or queues it (false; it gets {@code permitGranted} later). */
  synchronized boolean acquireOrWait(PoolStream stream) {
    if (available > 0 && waiters.isEmpty()) {
      available--;
      return true;
    }
    waiters.add(stream);
    return false;
  }

  /** Removes a waiting stream; true if it was waiting (then it holds no permit). */
  synchronized boolean cancel(PoolStream stream) {
    return waiters.remove(stream);
  }

  /** Returns a permit: handed to the next waiter that still wants it. */
  void release() {
    for (;;) {
      PoolStream next;
      synchronized (this) {
        next = waiters.poll();
        if (next == null) {
          available++;
          return;
        }
      }
      if (next.permitGranted()) {
        return;
      }
    }
  }

  synchronized int available() {
    return available;
  }

  synchronized int waiting() {
    return waiters.size();
  }
}
