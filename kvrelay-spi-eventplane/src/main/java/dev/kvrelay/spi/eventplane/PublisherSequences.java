package dev.kvrelay.spi.eventplane;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to one subscription's delivery thread. The per-publisher envelope sequence
 * check (runtime-inputs §5.6: a publisher numbers its messages 0, 1, 2, …): remembers the highest sequence
 * seen from each publisher and reports a skip ahead as an {@link EventPlaneFault.SequenceGap}.
 *
 * <p>A publisher's first message sets its baseline (a subscriber joins at any point of a publisher's life,
 * so a first sequence above 0 is not a gap). A sequence at or below the highest seen (a repeat or a
 * reorder) is counted in {@link #regressions()} and leaves the baseline unchanged. At most
 * {@code capacity} publishers are remembered; beyond that the least recently seen is forgotten and counted
 * in {@link #evictions()} (its next message sets a new baseline).
 */
public final class PublisherSequences {
  /** The default number of publishers remembered per subscription. */
  public static final int DEFAULT_CAPACITY = 65_536;

  private final int capacity;
  private final LinkedHashMap<Long, long[]> highest;
  private long regressions;
  private long evictions;
  private long gaps;
  private long missing;

  /**
   * A check remembering at most {@code capacity} publishers.
   *
   * @throws IllegalArgumentException if {@code capacity} is not positive
   */
  public PublisherSequences(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    this.highest = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, long[]> eldest) {
        if (size() > PublisherSequences.this.capacity) {
          evictions++;
          return true;
        }
        return false;
      }
    };
  }

  /** A check with {@link #DEFAULT_CAPACITY}. */
  public PublisherSequences() {
    this(DEFAULT_CAPACITY);
  }

  /**
   * Records that {@code publisherId} sent {@code sequence}; returns the gap if it skipped ahead of the
   * sequence expected next, else null (first message, next in order, or a regression).
   */
  public EventPlaneFault.@Nullable SequenceGap observe(long publisherId, long sequence) {
    long[] last = highest.get(publisherId);
    if (last == null) {
      highest.put(publisherId, new long[] {sequence});
      return null;
    }
    long expected = last[0] + 1;
    if (sequence == expected) {
      last[0] = sequence;
      return null;
    }
    if (Long.compareUnsigned(sequence, last[0]) <= 0) {
      regressions++;
      return null;
    }
    last[0] = sequence;
    gaps++;
    missing += sequence - expected;
    return new EventPlaneFault.SequenceGap(publisherId, expected, sequence);
  }

  /** Forgets every publisher (e.g. when the subscription is re-established from scratch). */
  public void clear() {
    highest.clear();
  }

  /** Publishers currently remembered. */
  public int size() {
    return highest.size();
  }

  /** Gaps reported so far. */
  public long gaps() {
    return gaps;
  }

  /** Messages missing in all gaps reported so far (unsigned 64-bit, saturating is not needed in practice). */
  public long missing() {
    return missing;
  }

  /** Messages whose sequence was at or below their publisher's highest (repeats, reorders). */
  public long regressions() {
    return regressions;
  }

  /** Publishers forgotten because {@code capacity} was exceeded. */
  public long evictions() {
    return evictions;
  }
}
