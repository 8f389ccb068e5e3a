package dev.kvrelay.spi.eventplane;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to one subscription's delivery thread. The per-publisher envelope sequence
 * check (runtime-inputs §5.4, §5.6: a publisher numbers its messages 0, 1, 2, …, unsigned 64-bit):
 * remembers the highest sequence seen from each publisher and says what each message means for it.
 *
 * <ul>
 *   <li>A publisher's first message sets its baseline (a subscriber joins at any point of a publisher's
 *       life, so a first sequence above 0 is not a gap); {@link #check} reports it as an
 *       {@link EventPlaneFault.NewPublisher} carrying that sequence.
 *   <li>A skip ahead of the sequence expected next (the highest plus one; after 2<sup>64</sup>−1 comes 0)
 *       is an {@link EventPlaneFault.SequenceGap}, counted in {@link #gaps()} and {@link #missing()}.
 *   <li>Any other sequence (a repeat or one below: a reorder, a replay, or the id reused by a restarted
 *       process) is counted in {@link #regressions()} and handled by the {@link OnRegression} rule the
 *       check was made with: {@link OnRegression#COUNT} leaves the baseline unchanged and reports nothing,
 *       {@link OnRegression#REPORT_AND_RESTART} reports an {@link EventPlaneFault.SequenceRegression} and
 *       restarts tracking from it (one restart is one report; the messages after it are in order again).
 * </ul>
 *
 * <p>At most {@code capacity} publishers are remembered; beyond that the least recently seen is forgotten
 * and counted in {@link #evictions()} (its next message sets a new baseline, a new publisher again).
 */
public final class PublisherSequences {
  /** The default number of publishers remembered per subscription. */
  public static final int DEFAULT_CAPACITY = 65_536;

  /** Immutable: what a sequence at or below its publisher's highest does to the check. */
  public enum OnRegression {
    /**
     * Counted, not reported; the baseline stays (the message is late or repeated, e.g. a slower broker's
     * copy, and the publisher is still the same).
     */
    COUNT,
    /**
     * Counted and reported as an {@link EventPlaneFault.SequenceRegression}; tracking restarts from the
     * received sequence (the id was reused by a restarted process, or messages were replayed).
     */
    REPORT_AND_RESTART
  }

  private final int capacity;
  private final OnRegression onRegression;
  private final LinkedHashMap<Long, long[]> highest;
  private long regressions;
  private long evictions;
  private long gaps;
  private long missing;

  /**
   * A check remembering at most {@code capacity} publishers, handling regressions by {@code onRegression}.
   *
   * @throws IllegalArgumentException if {@code capacity} is not positive
   */
  public PublisherSequences(int capacity, OnRegression onRegression) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    this.onRegression = Objects.requireNonNull(onRegression, "onRegression");
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

  /**
   * A check remembering at most {@code capacity} publishers that only counts regressions ({@link
   * OnRegression#COUNT}).
   *
   * @throws IllegalArgumentException if {@code capacity} is not positive
   */
  public PublisherSequences(int capacity) {
    this(capacity, OnRegression.COUNT);
  }

  /** A check with {@link #DEFAULT_CAPACITY} that only counts regressions. */
  public PublisherSequences() {
    this(DEFAULT_CAPACITY);
  }

  /**
   * Records that {@code publisherId} sent {@code sequence}; returns the fault it reveals (a new publisher,
   * a gap, or, under {@link OnRegression#REPORT_AND_RESTART}, a regression), else null (the sequence
   * expected next, or a regression only counted). Allocates only for a fault or a new publisher.
   */
  public EventPlaneFault.@Nullable SequenceFault check(long publisherId, long sequence) {
    long[] last = highest.get(publisherId);
    if (last == null) {
      highest.put(publisherId, new long[] {sequence});
      return new EventPlaneFault.NewPublisher(publisherId, sequence);
    }
    long expected = last[0] + 1;
    if (sequence == expected) {
      last[0] = sequence;
      return null;
    }
    if (Long.compareUnsigned(sequence, expected) > 0) {
      last[0] = sequence;
      gaps++;
      missing += sequence - expected;
      return new EventPlaneFault.SequenceGap(publisherId, expected, sequence);
    }
    regressions++;
    if (onRegression == OnRegression.COUNT) {
      return null;
    }
    last[0] = sequence;
    return new EventPlaneFault.SequenceRegression(publisherId, expected, sequence);
  }

  /**
   * Records that {@code publisherId} sent {@code sequence} as {@link #check} does; returns only a gap, else
   * null (first message, next in order, or a regression).
   */
  public EventPlaneFault.@Nullable SequenceGap observe(long publisherId, long sequence) {
    return check(publisherId, sequence) instanceof EventPlaneFault.SequenceGap gap ? gap : null;
  }

  /**
   * Forgets {@code publisherId} (e.g. its channel was disconnected): its next message is a new publisher
   * again. Not counted as an eviction.
   */
  public void forget(long publisherId) {
    highest.remove(publisherId);
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

  /** Messages whose sequence was neither the next expected nor ahead of it (repeats, reorders, restarts). */
  public long regressions() {
    return regressions;
  }

  /** Publishers forgotten because {@code capacity} was exceeded. */
  public long evictions() {
    return evictions;
  }
}
