package dev.kvrelay.engine.hub;

import dev.kvrelay.ckf.producer.CkfPublication;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: guarded by the owning {@link HubSlot}'s monitor — the publications of a pending lease that
 * arrive while its barrier snapshot is on its way (producer.md §3.1 broadcast), bounded: past the capacity the
 * buffer is dropped and marked overflowed, so the hub re-subscribes under a fresh lease instead of losing one.
 */
final class EarlyPublications {
  /** Publications buffered while the lease's barrier snapshot is on its way. */
  static final int CAPACITY = 64;

  private final ArrayDeque<CkfPublication> buffer = new ArrayDeque<>();
  private boolean overflowed;

  /** Buffers {@code p}, or drops everything and marks the overflow once the capacity is reached. */
  void add(CkfPublication p) {
    if (overflowed || buffer.size() >= CAPACITY) {
      overflowed = true;
      buffer.clear();
    } else {
      buffer.add(p);
    }
  }

  boolean overflowed() {
    return overflowed;
  }

  /** The oldest buffered publication, or null. */
  @Nullable CkfPublication poll() {
    return buffer.poll();
  }

  /** Empties the buffer (the overflow mark stays). */
  void clear() {
    buffer.clear();
  }

  /** Empties the buffer and clears the overflow mark (a new pending lease). */
  void reset() {
    buffer.clear();
    overflowed = false;
  }
}
