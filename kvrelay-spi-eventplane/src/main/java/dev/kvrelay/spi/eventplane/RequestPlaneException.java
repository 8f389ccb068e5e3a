package dev.kvrelay.spi.eventplane;

/**
 * Immutable: a recovery query got no answer from the worker (as opposed to an answer that reports a
 * failure, which is a {@link WorkerKvQueryResponse}).
 */
public final class RequestPlaneException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why no answer arrived. */
  public enum Kind {
    /** No answer within the query's timeout. */
    TIMEOUT,
    /** The target could not be reached (unknown instance, connection refused). */
    UNREACHABLE,
    /** The worker refused the request (load shedding: {@code Server overloaded:} / {@code Server unavailable:}). */
    REJECTED,
    /** The answer could not be decoded or broke the protocol. */
    PROTOCOL,
    /** The client is closed. */
    CLOSED
  }

  private final Kind kind;

  /** An exception of {@code kind}. */
  public RequestPlaneException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  /** An exception of {@code kind} caused by {@code cause}. */
  public RequestPlaneException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  /** Why no answer arrived. */
  public Kind kind() {
    return kind;
  }
}
