package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.spi.eventplane.EventPlaneFault;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to one subscription's receive thread. The next expected envelope sequence of each
 * publisher seen (runtime-inputs §5.4: 0 first, +1 per message; unsigned), and, when several brokers may
 * deliver the same message, the recently seen (publisher, sequence) pairs.
 *
 * <p>Bounded: at most {@link #MAX_PUBLISHERS} publishers are remembered (least recently heard forgotten first; a
 * forgotten publisher is reported as new again) and at most {@link #DEDUP_WINDOW} pairs.
 */
final class SequenceTracker {
  static final int MAX_PUBLISHERS = 65_536;
  /** As upstream's multi-broker de-duplication cache (100 000 entries). */
  static final int DEDUP_WINDOW = 100_000;

  /** Immutable: what one message means for its publisher's sequence. */
  record Outcome(boolean duplicate, EventPlaneFault.@Nullable SequenceFault signal) {}

  private static final Outcome IN_ORDER = new Outcome(false, null);
  private static final Outcome DUPLICATE = new Outcome(true, null);

  private final boolean deduplicate;
  private final Map<Long, long[]> next = new LinkedHashMap<>(16, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, long[]> eldest) {
      return size() > MAX_PUBLISHERS;
    }
  };
  private final Map<PublisherSequence, Boolean> seen = new LinkedHashMap<>(16, 0.75f, false) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<PublisherSequence, Boolean> eldest) {
      return size() > DEDUP_WINDOW;
    }
  };

  /** Immutable: a (publisher, sequence) pair. */
  private record PublisherSequence(long publisherId, long sequence) {}

  /** @param deduplicate true when the same message can arrive more than once (several broker XPUB endpoints) */
  SequenceTracker(boolean deduplicate) {
    this.deduplicate = deduplicate;
  }

  /** Records one accepted message and says whether it is a duplicate or breaks its publisher's sequence. */
  Outcome observe(long publisherId, long sequence) {
    if (deduplicate && seen.put(new PublisherSequence(publisherId, sequence), Boolean.TRUE) != null) {
      return DUPLICATE;
    }
    long[] expected = next.get(publisherId);
    if (expected == null) {
      next.put(publisherId, new long[] {sequence + 1});
      return new Outcome(false, new EventPlaneFault.NewPublisher(publisherId, sequence));
    }
    long want = expected[0];
    if (sequence == want) {
      expected[0] = sequence + 1;
      return IN_ORDER;
    }
    if (Long.compareUnsigned(sequence, want) > 0) {
      expected[0] = sequence + 1;
      return new Outcome(false, new EventPlaneFault.SequenceGap(publisherId, want, sequence));
    }
    if (deduplicate) {
      // a late message through a slower broker that was not a duplicate: deliver, keep the cursor
      return IN_ORDER;
    }
    expected[0] = sequence + 1;
    return new Outcome(false, new EventPlaneFault.SequenceRegression(publisherId, want, sequence));
  }

  /** Forgets {@code publisherId} (its channel was disconnected): its next message is a new publisher again. */
  void forget(long publisherId) {
    next.remove(publisherId);
  }
}
