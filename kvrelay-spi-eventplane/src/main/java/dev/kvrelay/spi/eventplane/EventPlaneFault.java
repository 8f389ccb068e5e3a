package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Immutable and thread-safe: a loss or interruption a subscription's transport observed, reported through
 * {@link EventListener#onFault} so that recovery can act on it (runtime-inputs §6.3, producer.md §3.6).
 *
 * <p>Messages lost this way never reach {@link EventListener#onKvEvent}; the plane also counts every fault
 * in its own statistics and logs it. A {@link SequenceFault} (a new publisher, a gap, a regression) names one
 * publisher and is reported right before the message that revealed it, which is then delivered as usual;
 * {@link Disconnected} and {@link MessagesDropped} may concern any publisher of the subscription.
 */
public sealed interface EventPlaneFault
    permits EventPlaneFault.Disconnected, EventPlaneFault.Reconnected, EventPlaneFault.MessagesDropped,
        EventPlaneFault.SequenceFault {

  /** A one-line description for logs. */
  String describe();

  /**
   * Immutable and thread-safe: the transport lost its connection; every message published until the
   * matching {@link Reconnected} is lost for this subscription.
   *
   * @param detail what the transport said, e.g. the server address
   */
  record Disconnected(String detail) implements EventPlaneFault {
    /** Requires a detail. */
    public Disconnected {
      Objects.requireNonNull(detail, "detail");
    }

    @Override
    public String describe() {
      return "disconnected: " + detail;
    }
  }

  /**
   * Immutable and thread-safe: the transport is connected again and the subscription re-established;
   * messages published while it was disconnected are lost (each publisher's next message shows a
   * {@link SequenceGap}).
   *
   * @param detail what the transport said, e.g. the server address
   */
  record Reconnected(String detail) implements EventPlaneFault {
    /** Requires a detail. */
    public Reconnected {
      Objects.requireNonNull(detail, "detail");
    }

    @Override
    public String describe() {
      return "reconnected: " + detail;
    }
  }

  /**
   * Immutable and thread-safe: the transport discarded {@code count} messages of this subscription before
   * they could be decoded (a slow consumer over its pending limits); their publishers are unknown.
   *
   * @param count how many messages were discarded since the previous report (positive)
   * @param detail why, e.g. the pending limits
   */
  record MessagesDropped(long count, String detail) implements EventPlaneFault {
    /** Requires a positive count and a detail. */
    public MessagesDropped {
      if (count <= 0) {
        throw new IllegalArgumentException("count must be positive: " + count);
      }
      Objects.requireNonNull(detail, "detail");
    }

    @Override
    public String describe() {
      return count + " messages dropped: " + detail;
    }
  }

  /**
   * Immutable and thread-safe: a discontinuity in one publisher's envelope {@code sequence} (runtime-inputs
   * §5.4: it starts at 0 per publisher incarnation and grows by one per message). All sequences are unsigned
   * 64-bit.
   */
  sealed interface SequenceFault extends EventPlaneFault
      permits NewPublisher, SequenceGap, SequenceRegression {
    /** The publisher ({@code publisher_id}) whose sequence broke. */
    long publisherId();

    /** The sequence of the message that revealed the break. */
    long receivedSequence();
  }

  /**
   * Immutable and thread-safe: the first message of a publisher id this subscription has seen (a new
   * publisher incarnation, e.g. a restarted worker: a cold start). {@code receivedSequence} 0 means the stream
   * is seen from its start; a larger value means the subscription joined late.
   *
   * @param publisherId the new publisher id
   * @param receivedSequence the sequence of its first message seen
   */
  record NewPublisher(long publisherId, long receivedSequence) implements SequenceFault {
    /** True if the first message seen is the publisher's first message (sequence 0). */
    public boolean fromStart() {
      return receivedSequence == 0;
    }

    @Override
    public String describe() {
      return "new publisher " + Long.toUnsignedString(publisherId) + " at sequence "
          + Long.toUnsignedString(receivedSequence);
    }
  }

  /**
   * Immutable and thread-safe: a known publisher's sequence went backwards (its id reused by a restarted
   * process, or a replayed message); tracking restarts from {@code receivedSequence}.
   *
   * @param publisherId the publisher
   * @param expectedSequence the sequence that should have come next
   * @param receivedSequence the sequence that came instead, unsigned-less than {@code expectedSequence}
   */
  record SequenceRegression(long publisherId, long expectedSequence, long receivedSequence)
      implements SequenceFault {
    @Override
    public String describe() {
      return "publisher " + Long.toUnsignedString(publisherId) + " sequence went back: expected "
          + Long.toUnsignedString(expectedSequence) + ", received " + Long.toUnsignedString(receivedSequence);
    }
  }

  /**
   * Immutable and thread-safe: a publisher's envelope {@code sequence} skipped ahead (runtime-inputs §5.6:
   * +1 per message), so {@link #missing()} of its messages were lost; the message carrying
   * {@code receivedSequence} is delivered right after this report.
   *
   * @param publisherId the publisher (unsigned 64-bit)
   * @param expectedSequence the sequence that should have come next (unsigned 64-bit)
   * @param receivedSequence the sequence that came, unsigned-greater than {@code expectedSequence}
   */
  record SequenceGap(long publisherId, long expectedSequence, long receivedSequence) implements SequenceFault {
    /** Requires {@code receivedSequence} unsigned-greater than {@code expectedSequence}. */
    public SequenceGap {
      if (Long.compareUnsigned(receivedSequence, expectedSequence) <= 0) {
        throw new IllegalArgumentException("received sequence " + Long.toUnsignedString(receivedSequence)
            + " does not skip ahead of expected " + Long.toUnsignedString(expectedSequence));
      }
    }

    /** How many messages are missing (unsigned 64-bit). */
    public long missing() {
      return receivedSequence - expectedSequence;
    }

    @Override
    public String describe() {
      return "publisher " + Long.toUnsignedString(publisherId) + " sequence gap: expected "
          + Long.toUnsignedString(expectedSequence) + ", received " + Long.toUnsignedString(receivedSequence)
          + " (" + Long.toUnsignedString(missing()) + " missing)";
    }
  }
}
