package dev.kvrelay.spi.discovery;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a discovery backend could not do what was asked, or reports a problem
 * through {@link DiscoveryListener#onError}. The {@link Kind} says what sort of problem.
 */
public class DiscoveryException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: the sort of problem. */
  public enum Kind {
    /** One discovery entry could not be decoded; it is skipped, the watch goes on ({@link DiscoveryDecodeException}). */
    MALFORMED_ENTRY,
    /** Settings or scope are invalid; retrying will not help. */
    INVALID_CONFIGURATION,
    /** The backing store cannot be reached or refused the request; a retry may help. */
    UNAVAILABLE,
    /** A watch lost its stream; the backend retries and then delivers {@link DiscoveryListener#onResync}. */
    WATCH_INTERRUPTED,
    /** The backend or watch is closed. */
    CLOSED
  }

  private final Kind kind;

  /**
   * @param kind the sort of problem
   * @param message what went wrong, for operators (never echoes secrets)
   */
  public DiscoveryException(Kind kind, String message) {
    this(kind, message, null);
  }

  /**
   * @param kind the sort of problem
   * @param message what went wrong, for operators (never echoes secrets)
   * @param cause the underlying failure, if any
   */
  public DiscoveryException(Kind kind, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** The sort of problem. */
  public Kind kind() {
    return kind;
  }
}
