package dev.kvrelay.engine.actor;

import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (atomics only, never blocks): the pool actor's mailbox occupancy and block permits (producer.md §3.1),
 * and the one waiter for room of a feeder that is not the actor's ingest stage (backpressure: {@link #roomFor}). The
 * mailbox itself enforces its bound; the count kept here is the estimate {@link #roomFor} reads, less a reserve of
 * one eighth kept for control commands.
 */
final class MailboxRoom {
  private final int capacity;
  private final long permits;
  private final int controlReserve;
  private final AtomicLong permitsInUse = new AtomicLong();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicReference<@Nullable Runnable> waiter = new AtomicReference<>();

  MailboxRoom(PoolActorConfig config) {
    this.capacity = config.mailboxCapacity();
    this.permits = config.pendingBlockPermits();
    this.controlReserve = capacity / 8;
  }

  /** Block permits an Apply of {@code event} costs: {@code max(1, #blocks or #removed hashes)}, capped. */
  long cost(RouterEvent event) {
    long n;
    KvEventData data = event.data();
    if (data instanceof KvEventData.Stored s) {
      n = s.blocks().size();
    } else if (data instanceof KvEventData.Removed r) {
      n = r.blockHashes().length;
    } else {
      n = 1;
    }
    return Math.max(1, Math.min(n, permits));
  }

  /** Takes {@code cost} permits; false (nothing taken) if they would exceed the total. */
  boolean acquire(long cost) {
    for (;;) {
      long used = permitsInUse.get();
      if (used + cost > permits) {
        return false;
      }
      if (permitsInUse.compareAndSet(used, used + cost)) {
        return true;
      }
    }
  }

  /** Returns {@code cost} permits. */
  void release(long cost) {
    permitsInUse.addAndGet(-cost);
  }

  /** Block permits held by queued Apply commands. */
  long permitsInUse() {
    return permitsInUse.get();
  }

  /** A command is about to enter the mailbox. */
  void enqueued() {
    queued.incrementAndGet();
  }

  /** A command left the mailbox (or did not enter it). */
  void dequeued() {
    queued.decrementAndGet();
  }

  /**
   * True if an Apply of {@code event} would find room now, or {@code closed}; otherwise {@code onRoom} becomes the
   * waiter (run once by {@link #takeWaiter}'s caller) and the room is checked once more (no lost wake-up: the actor
   * frees room, then reads the waiter).
   */
  boolean roomFor(RouterEvent event, Runnable onRoom, boolean closed) {
    long cost = cost(event);
    if (hasRoom(cost, closed)) {
      return true;
    }
    waiter.set(onRoom);
    return hasRoom(cost, closed);
  }

  /** The waiter to run now that room may have freed (taken, so it runs once), or null. */
  @Nullable Runnable takeWaiter(boolean closed) {
    return waiter.get() != null && hasRoom(1, closed) ? waiter.getAndSet(null) : null;
  }

  private boolean hasRoom(long cost, boolean closed) {
    return closed || (queued.get() < capacity - controlReserve && permitsInUse.get() + cost <= permits);
  }
}
