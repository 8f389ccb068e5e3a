package dev.kvrelay.spi.eventplane;

import java.util.OptionalLong;

/**
 * Immutable: an event-plane message could not be decoded or failed its identity checks. The
 * {@link Reason} names the class of defect; {@link #field()} names where it was found; the publisher id is
 * attached when the envelope (or ZMQ frame 1) was readable.
 */
public final class EventDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: the class of defect. */
  public enum Reason {
    /** The input ends inside a value or header. */
    TRUNCATED,
    /** A declared length or element count exceeds the bytes that remain. */
    OVERSIZE_LENGTH,
    /** A value has a msgpack type the field does not accept. */
    WRONG_TYPE,
    /** A required field is absent. */
    MISSING_FIELD,
    /** A map names the same field twice. */
    DUPLICATE_FIELD,
    /** An enum variant is unknown, or a variant map does not have exactly one entry. */
    BAD_VARIANT,
    /** An integer does not fit the field (negative for {@code u64}, above 2^32 − 1 for {@code u32}). */
    OUT_OF_RANGE,
    /** A string is not valid UTF-8. */
    INVALID_UTF8,
    /** Bytes remain after the top-level value. */
    TRAILING_BYTES,
    /** An ignored value nests deeper than the decoder follows. */
    TOO_DEEP,
    /** A ZMQ message does not have the 4-frame shape (frame count, frame sizes, payload length). */
    BAD_FRAMING,
    /** The ZMQ payload frame's version byte is not {@code 0x01}. */
    UNSUPPORTED_FRAME_VERSION,
    /**
     * The message is well-formed but its identity disagrees with the transport: topic, publisher id or
     * sequence of the envelope versus the frames, the subscription or the expected publishers.
     */
    IDENTITY_MISMATCH
  }

  private final Reason reason;
  private final String field;
  private final String detail;
  private final boolean hasPublisherId;
  private final long publisherId;

  EventDecodeException(Reason reason, String field, String detail) {
    this(reason, field, detail, false, 0L);
  }

  private EventDecodeException(
      Reason reason, String field, String detail, boolean hasPublisherId, long publisherId) {
    super(reason + " at " + (field.isEmpty() ? "<root>" : field) + ": " + detail, null, false, false);
    this.reason = reason;
    this.field = field;
    this.detail = detail;
    this.hasPublisherId = hasPublisherId;
    this.publisherId = publisherId;
  }

  /** The class of defect. */
  public Reason reason() {
    return reason;
  }

  /** Where the defect was found, e.g. {@code payload.event.data.stored.blocks.tokens_hash}; empty for the root. */
  public String field() {
    return field;
  }

  /** The publisher that sent the message, when the envelope or the ZMQ frame 1 could be read. */
  public OptionalLong publisherId() {
    return hasPublisherId ? OptionalLong.of(publisherId) : OptionalLong.empty();
  }

  /** The same error attributed to {@code publisherId}. */
  EventDecodeException withPublisherId(long id) {
    return new EventDecodeException(reason, field, detail, true, id);
  }

  /** The same error with {@code prefix} prepended to the field path. */
  EventDecodeException under(String prefix) {
    String f = field.isEmpty() ? prefix : prefix + "." + field;
    return new EventDecodeException(reason, f, detail, hasPublisherId, publisherId);
  }

  /** What was wrong, without the reason and field. */
  public String detail() {
    return detail;
  }
}
