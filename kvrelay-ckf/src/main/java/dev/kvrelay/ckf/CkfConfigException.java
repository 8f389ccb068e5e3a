package dev.kvrelay.ckf;

/**
 * Immutable and thread-safe rejection of a CKF configuration value (sizing, kick budget, publication
 * cadence), carrying a typed {@link Reason}.
 */
public final class CkfConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable: why a configuration value was rejected. */
  public enum Reason {
    /** {@code expected_blocks_per_dc} is zero. */
    EXPECTED_CAPACITY_ZERO,
    /** The bucket-count arithmetic overflows 64 bits. */
    CAPACITY_OVERFLOW,
    /** The bucket count exceeds what CBI1 can carry ({@code 2^24}). */
    BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM,
    /** {@code max_kicks} outside {@code 1..=4096}. */
    INVALID_MAX_KICKS,
    /** {@code publish_every_n_events} below 1. */
    INVALID_PUBLISH_EVERY_N_EVENTS
  }

  private final Reason reason;

  /** A rejection for {@code reason} with a human-readable message. */
  public CkfConfigException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** Why the value was rejected. */
  public Reason reason() {
    return reason;
  }
}
