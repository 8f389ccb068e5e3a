package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Immutable and thread-safe: the outcome of validating one received ZMQ multipart message
 * ({@link ZmqFrames#check}): the decoded message, or the typed reason to drop it.
 */
public sealed interface ZmqFrameCheck permits ZmqFrameCheck.Accepted, ZmqFrameCheck.Rejected {

  /**
   * Immutable and thread-safe: the frames are consistent and the message decoded.
   *
   * @param message the decoded message
   */
  record Accepted(EventMessage message) implements ZmqFrameCheck {
    /** Requires a message. */
    public Accepted {
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * Immutable and thread-safe: the message must be dropped (and the source resynchronized).
   *
   * @param error why; it carries the frame-1 publisher id when that frame was readable
   */
  record Rejected(EventDecodeException error) implements ZmqFrameCheck {
    /** Requires an error. */
    public Rejected {
      Objects.requireNonNull(error, "error");
    }
  }
}
