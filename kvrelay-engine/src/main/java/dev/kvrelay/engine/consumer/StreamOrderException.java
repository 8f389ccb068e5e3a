package dev.kvrelay.engine.consumer;

import java.util.Objects;

/**
 * Immutable and thread-safe: a readiness snapshot or load window broke its stream's ordering rule
 * (wan-grpc.md §5, §7.5); the message changed nothing and the owner reopens the stream.
 */
final class StreamOrderException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable: which ordering rule was broken. */
  public enum Reason {
    /** A readiness revision smaller than the last applied one. */
    REVISION_REGRESSED,
    /** The same readiness revision with different entries. */
    REVISION_CONFLICT,
    /** A load {@code window_sequence} at or below the last applied one within the stream. */
    WINDOW_NOT_INCREASING
  }

  private final Reason reason;

  /**
   * @param reason the broken rule
   * @param message what was received, for logs
   */
  public StreamOrderException(Reason reason, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The broken rule. */
  public Reason reason() {
    return reason;
  }
}
