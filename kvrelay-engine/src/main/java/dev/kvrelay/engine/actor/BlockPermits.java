package dev.kvrelay.engine.actor;

import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread-safe (one atomic, never blocks): the pool actor's block permits (producer.md §3.1), taken by an Apply when it
 * enters the mailbox and returned when it has run. The mailbox itself enforces its own bound.
 */
final class BlockPermits {
  private final long permits;
  private final AtomicLong permitsInUse = new AtomicLong();

  BlockPermits(PoolActorConfig config) {
    this.permits = config.pendingBlockPermits();
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
  long inUse() {
    return permitsInUse.get();
  }
}
