package dev.kvrelay.spi.eventplane;

/**
 * Immutable: an event-plane operation failed (opening the plane, subscribing, connecting a channel).
 */
public final class EventPlaneException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why the operation failed. */
  public enum Kind {
    /** The settings or an argument are invalid (e.g. a malformed endpoint). */
    INVALID_ARGUMENT,
    /** The transport could not be reached or failed. */
    TRANSPORT_FAILURE,
    /** The plane or the subscription is closed. */
    CLOSED,
    /** The channel kind is not one this plane can connect to. */
    UNSUPPORTED_CHANNEL
  }

  private final Kind kind;

  /** An exception of {@code kind}. */
  public EventPlaneException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  /** An exception of {@code kind} caused by {@code cause}. */
  public EventPlaneException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  /** Why the operation failed. */
  public Kind kind() {
    return kind;
  }
}
