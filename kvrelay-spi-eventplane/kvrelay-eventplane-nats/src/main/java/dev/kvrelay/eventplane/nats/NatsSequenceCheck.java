package dev.kvrelay.eventplane.nats;

import dev.kvrelay.spi.eventplane.EventPlaneFault;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to one subscription's delivery thread. The next expected envelope sequence of
 * each publisher this subscription has heard (runtime-inputs §5.4, §5.6: 0 first, +1 per message, unsigned
 * 64-bit), and what each message means for it, with the same rule as the ZMQ plane:
 *
 * <ul>
 *   <li>the first message of a publisher id is a {@link EventPlaneFault.NewPublisher} carrying its sequence
 *       (a restarted worker has a new id; a first sequence above 0 means the stream was joined late);
 *   <li>a skip ahead is a {@link EventPlaneFault.SequenceGap};
 *   <li>a sequence below the one expected (the id reused by a restarted process, or a replay) is a
 *       {@link EventPlaneFault.SequenceRegression}, and tracking restarts from it, so one restart is one
 *       report and the messages after it are in order again.
 * </ul>
 *
 * <p>Bounded: at most {@code capacity} publishers are remembered, the least recently heard forgotten first
 * (counted in {@link #evictions()}); a forgotten publisher's next message is a new publisher again.
 */
final class NatsSequenceCheck {
  private final int capacity;
  private final Map<Long, long[]> next;
  private long evictions;

  /**
   * A check remembering at most {@code capacity} publishers.
   *
   * @throws IllegalArgumentException if {@code capacity} is not positive
   */
  NatsSequenceCheck(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    this.next = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, long[]> eldest) {
        if (size() > NatsSequenceCheck.this.capacity) {
          evictions++;
          return true;
        }
        return false;
      }
    };
  }

  /**
   * Records that {@code publisherId} sent {@code sequence}; returns the fault it reveals, or null if it is
   * the sequence expected next. Allocates only for a fault or a new publisher.
   */
  EventPlaneFault.@Nullable SequenceFault observe(long publisherId, long sequence) {
    long[] expected = next.get(publisherId);
    if (expected == null) {
      next.put(publisherId, new long[] {sequence + 1});
      return new EventPlaneFault.NewPublisher(publisherId, sequence);
    }
    long want = expected[0];
    expected[0] = sequence + 1;
    if (sequence == want) {
      return null;
    }
    if (Long.compareUnsigned(sequence, want) > 0) {
      return new EventPlaneFault.SequenceGap(publisherId, want, sequence);
    }
    return new EventPlaneFault.SequenceRegression(publisherId, want, sequence);
  }

  /** Publishers currently remembered. */
  int size() {
    return next.size();
  }

  /** Publishers forgotten because the capacity was exceeded. */
  long evictions() {
    return evictions;
  }
}
