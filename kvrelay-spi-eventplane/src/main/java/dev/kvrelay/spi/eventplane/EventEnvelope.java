package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Immutable and thread-safe: the envelope fields of one event-plane message (runtime-inputs.md §5.6),
 * without the payload.
 *
 * @param publisherId {@code publisher_id}: one per publisher incarnation (unsigned 64-bit)
 * @param sequence {@code sequence}: 0 for the publisher's first message, +1 per message
 * @param publishedAtMs {@code published_at}: Unix time in milliseconds
 * @param topic {@code topic}, e.g. {@code kv-events}
 */
public record EventEnvelope(long publisherId, long sequence, long publishedAtMs, String topic) {

  /** Requires a topic. */
  public EventEnvelope {
    Objects.requireNonNull(topic, "topic");
  }

  @Override
  public String toString() {
    return "EventEnvelope[publisherId=" + Long.toUnsignedString(publisherId) + ", sequence="
        + Long.toUnsignedString(sequence) + ", publishedAtMs=" + Long.toUnsignedString(publishedAtMs)
        + ", topic=" + topic + "]";
  }
}
