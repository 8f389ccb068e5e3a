package dev.kvrelay.requestplane.tcp;

/**
 * Immutable: bytes or JSON on a request-plane connection that break plugins-wire §1 (a frame above the size
 * limit, a stream cut inside a frame, a malformed field).
 */
public final class TcpWireException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: what was wrong. */
  public enum Reason {
    /** A length field exceeds the configured maximum ({@code DYN_TCP_MAX_MESSAGE_SIZE}, 32 MiB). */
    OVERSIZE,
    /** The stream ended inside a frame. */
    TRUNCATED,
    /** A field does not have the layout or JSON shape plugins-wire §1.3 / §1.4 requires. */
    MALFORMED
  }

  private final Reason reason;

  /** An exception for {@code reason}. */
  public TcpWireException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** An exception for {@code reason} caused by {@code cause}. */
  public TcpWireException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  /** What was wrong. */
  public Reason reason() {
    return reason;
  }
}
