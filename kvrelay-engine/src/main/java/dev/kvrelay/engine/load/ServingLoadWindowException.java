package dev.kvrelay.engine.load;

/**
 * Immutable and thread-safe: a serving-load window could not be built; the {@link ServingLoadWindows} state
 * is unchanged.
 */
public final class ServingLoadWindowException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why a serving-load window could not be built. */
  public enum Reason {
    /** {@link ServingLoadWindows#initial} was already called. */
    ALREADY_STARTED,
    /** {@link ServingLoadWindows#next} before {@link ServingLoadWindows#initial}. */
    NOT_STARTED,
    /** The window sequence would pass u64 max (fatal for the publisher, wan-grpc.md §4.1). */
    SEQUENCE_EXHAUSTED,
    /** Two inputs name the same pool id. */
    DUPLICATE_POOL
  }

  private final Reason reason;

  ServingLoadWindowException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** The reason. */
  public Reason reason() {
    return reason;
  }
}
