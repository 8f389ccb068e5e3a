package dev.kvrelay.engine.load;

/** Immutable and thread-safe: a window could not be built; the {@link LoadWindows} state is unchanged. */
public final class LoadWindowException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why a window could not be built. */
  public enum Reason {
    /** {@link LoadWindows#initial} was already called. */
    ALREADY_STARTED,
    /** {@link LoadWindows#next} before {@link LoadWindows#initial}. */
    NOT_STARTED,
    /** The window sequence would pass u64 max (fatal for the publisher, wan-grpc.md §4.1). */
    SEQUENCE_EXHAUSTED,
    /** Two reports name the same pool id. */
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
