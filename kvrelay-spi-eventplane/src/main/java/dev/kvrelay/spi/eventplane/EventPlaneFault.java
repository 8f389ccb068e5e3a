package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Immutable and thread-safe: a loss or interruption a subscription's transport observed, reported through
 * {@link EventListener#onFault} so that recovery can act on it (runtime-inputs §6.3, producer.md §3.6).
 *
 * <p>Messages lost this way never reach {@link EventListener#onKvEvent}; the plane also counts every fault
 * in its own statistics and logs it. A {@link SequenceGap} names the publisher whose messages are
 * missing; {@link Disconnected} and {@link MessagesDropped} may concern any publisher of the subscription.
 */
public sealed interface EventPlaneFault
    permits EventPlaneFault.Disconnected, EventPlaneFault.Reconnected, EventPlaneFault.MessagesDropped,
        EventPlaneFault.SequenceGap {

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
   * Immutable and thread-safe: a publisher's envelope {@code sequence} skipped ahead (runtime-inputs §5.6:
   * +1 per message), so {@link #missing()} of its messages were lost; the message carrying
   * {@code receivedSequence} is delivered right after this report.
   *
   * @param publisherId the publisher (unsigned 64-bit)
   * @param expectedSequence the sequence that should have come next (unsigned 64-bit)
   * @param receivedSequence the sequence that came, unsigned-greater than {@code expectedSequence}
   */
  record SequenceGap(long publisherId, long expectedSequence, long receivedSequence) implements EventPlaneFault {
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
