package dev.kvrelay.engine.load;

/**
 * Immutable and thread-safe: a load window (pool load, {@link LoadWindows}, or serving load, {@link
 * ServingLoadWindows}) could not be built; the builder's state is unchanged.
 */
public final class LoadWindowException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why a window could not be built. */
  public enum Reason {
    /** {@code initial} was already called. */
    ALREADY_STARTED,
    /** {@code next} before {@code initial}. */
    NOT_STARTED,
    /** The window sequence would pass u64 max (fatal for the publisher, wan-grpc.md §4.1). */
    SEQUENCE_EXHAUSTED,
    /** Two reports (or inputs) name the same pool id. */
    DUPLICATE_POOL
  }

  private final Reason reason;

  LoadWindowException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** The reason. */
  public Reason reason() {
    return reason;
  }
}
