package dev.kvrelay.ckf.hashing;

/**
 * Immutable and thread-safe: rejected input to token or sequence hashing, with a typed {@link Reason}.
 *
 * <p>Thrown before any output is written: a rejected call leaves the caller's arrays and the hasher
 * unchanged.
 */
public final class HashingInputException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why the input was rejected. */
  public enum Reason {
    /** The block size is zero where the hash format needs a positive one (EAGLE). */
    BLOCK_SIZE_INVALID,
    /** An offset / length pair does not lie inside its array, or input and output overlap unsafely. */
    INPUT_RANGE_INVALID,
    /** The output array has too little room from the given offset for every hash. */
    OUTPUT_TOO_SMALL,
    /** A multimodal object identifier is empty, so it has no {@code mm_hash}. */
    MM_IDENTIFIER_EMPTY
  }

  private final Reason reason;

  HashingInputException(Reason reason, String message) {
    super(reason + ": " + message);
    this.reason = reason;
  }

  /** Why the input was rejected. */
  public Reason reason() {
    return reason;
  }
}
