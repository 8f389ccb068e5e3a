package dev.kvrelay.spi.eventplane;

/**
 * Immutable and thread-safe: a discontinuity a transport saw in one publisher's envelope sequence
 * (runtime-inputs.md §5.4: {@code sequence} starts at 0 per publisher incarnation and grows by one per
 * message, so a jump means the transport dropped messages). Reported through
 * {@link EventListener#onSequenceBreak} just before the message that revealed it; the message itself is still
 * delivered. Recovery does not depend on it (the per-rank {@code event_id} cursor finds the same holes), but it
 * names the cause: a transport drop rather than a worker fault. All sequences are unsigned 64-bit.
 */
public sealed interface SequenceBreak
    permits SequenceBreak.NewPublisher, SequenceBreak.Gap, SequenceBreak.Regression {

  /** The publisher ({@code publisher_id}) whose sequence broke. */
  long publisherId();

  /** The sequence of the message that revealed the break. */
  long receivedSequence();

  /**
   * Immutable and thread-safe: the first message of a publisher id this subscription has seen (a new publisher
   * incarnation, e.g. a restarted worker: a cold start). {@code receivedSequence} 0 means the stream is seen
   * from its start; a larger value means the subscription joined late and never saw the earlier messages.
   *
   * @param publisherId the new publisher id
   * @param receivedSequence the sequence of its first message seen
   */
  record NewPublisher(long publisherId, long receivedSequence) implements SequenceBreak {
    /** True if the first message seen is the publisher's first message (sequence 0). */
    public boolean fromStart() {
      return receivedSequence == 0;
    }

    @Override
    public String toString() {
      return "NewPublisher[publisherId=" + Long.toUnsignedString(publisherId) + ", receivedSequence="
          + Long.toUnsignedString(receivedSequence) + "]";
    }
  }

  /**
   * Immutable and thread-safe: messages {@code expectedSequence … receivedSequence − 1} of a known publisher
   * never arrived (transport drops, e.g. a full high-water mark).
   *
   * @param publisherId the publisher
   * @param expectedSequence the sequence that should have come next
   * @param receivedSequence the sequence that came instead (unsigned-greater than expected)
   */
  record Gap(long publisherId, long expectedSequence, long receivedSequence) implements SequenceBreak {
    /** How many messages are missing. */
    public long missed() {
      return receivedSequence - expectedSequence;
    }

    @Override
    public String toString() {
      return "Gap[publisherId=" + Long.toUnsignedString(publisherId) + ", expectedSequence="
          + Long.toUnsignedString(expectedSequence) + ", receivedSequence=" + Long.toUnsignedString(receivedSequence)
          + "]";
    }
  }

  /**
   * Immutable and thread-safe: a known publisher's sequence went backwards (its id was reused by a restarted
   * process, or a message was replayed); tracking restarts from {@code receivedSequence}.
   *
   * @param publisherId the publisher
   * @param expectedSequence the sequence that should have come next
   * @param receivedSequence the sequence that came instead (unsigned-less than expected)
   */
  record Regression(long publisherId, long expectedSequence, long receivedSequence) implements SequenceBreak {
    @Override
    public String toString() {
      return "Regression[publisherId=" + Long.toUnsignedString(publisherId) + ", expectedSequence="
          + Long.toUnsignedString(expectedSequence) + ", receivedSequence=" + Long.toUnsignedString(receivedSequence)
          + "]";
    }
  }
}
