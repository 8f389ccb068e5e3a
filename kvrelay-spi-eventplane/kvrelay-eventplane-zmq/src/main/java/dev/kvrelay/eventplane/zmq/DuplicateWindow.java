package dev.kvrelay.eventplane.zmq;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Not thread-safe: confined to one subscription's receive thread. The recently seen (publisher, sequence)
 * pairs of a subscription to several brokers' XPUB endpoints, where the same message can arrive once per
 * broker: a pair seen before is a duplicate.
 *
 * <p>Bounded: at most {@link #SIZE} pairs, the oldest seen forgotten first.
 */
final class DuplicateWindow {
  /** As upstream's multi-broker de-duplication cache (100 000 entries). */
  static final int SIZE = 100_000;

  /** Immutable: a (publisher, sequence) pair. */
  private record PublisherSequence(long publisherId, long sequence) {}

  private final int size;
  private final Map<PublisherSequence, Boolean> seen = new LinkedHashMap<>(16, 0.75f, false) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<PublisherSequence, Boolean> eldest) {
      return size() > DuplicateWindow.this.size;
    }
  };

  /** A window of {@link #SIZE} pairs. */
  DuplicateWindow() {
    this(SIZE);
  }

  /** A window of {@code size} pairs (positive). */
  DuplicateWindow(int size) {
    if (size <= 0) {
      throw new IllegalArgumentException("size must be positive: " + size);
    }
    this.size = size;
  }

  /** Records the pair; true if it was seen before (within the window). */
  boolean repeated(long publisherId, long sequence) {
    return seen.put(new PublisherSequence(publisherId, sequence), Boolean.TRUE) != null;
  }
}
