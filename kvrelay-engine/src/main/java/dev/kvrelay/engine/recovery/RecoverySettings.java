package dev.kvrelay.engine.recovery;

import dev.kvrelay.engine.RelayEngineConfig;

/**
 * Immutable and thread-safe: the recovery bounds (producer.md §3.6, runtime-inputs.md §6.3).
 *
 * @param attemptTimeoutMs per-attempt query timeout, also the initial-wave batching deadline
 *     ({@code DYN_RELAY_RECOVERY_ATTEMPT_TIMEOUT_MS}, default 30 000)
 * @param maxRetries retries after the first attempt ({@code RECOVERY_MAX_RETRIES} = 8)
 * @param initialBackoffMs the first retry's backoff, doubled per retry ({@code RECOVERY_INITIAL_BACKOFF_MS} = 200)
 * @param bufferCapacity live events buffered per rank while recovering (1024, oldest dropped)
 * @param batchQuietMs the rank-replacement batch window's quiet period (5 ms)
 */
public record RecoverySettings(
    long attemptTimeoutMs, int maxRetries, long initialBackoffMs, int bufferCapacity, long batchQuietMs) {

  /** {@code RECOVERY_MAX_RETRIES}. */
  public static final int MAX_RETRIES = 8;
  /** {@code RECOVERY_INITIAL_BACKOFF_MS}. */
  public static final long INITIAL_BACKOFF_MS = 200;
  /** Live events buffered per rank while recovering. */
  public static final int BUFFER_CAPACITY = 1024;
  /** Recovery rebuild batch window: quiet period in milliseconds. */
  public static final long BATCH_QUIET_MS = 5;
  /** Default per-attempt timeout in milliseconds. */
  public static final long DEFAULT_ATTEMPT_TIMEOUT_MS = 30_000;
  /** The spec's values. */
  public static final RecoverySettings DEFAULTS = new RecoverySettings(
      DEFAULT_ATTEMPT_TIMEOUT_MS, MAX_RETRIES, INITIAL_BACKOFF_MS, BUFFER_CAPACITY, BATCH_QUIET_MS);

  /**
   * @throws IllegalArgumentException if a duration or the capacity is not positive, or retries negative
   */
  public RecoverySettings {
    if (attemptTimeoutMs < 1 || maxRetries < 0 || maxRetries > 62 || initialBackoffMs < 1 || bufferCapacity < 1
        || batchQuietMs < 1) {
      throw new IllegalArgumentException("invalid recovery settings: timeout " + attemptTimeoutMs + " ms, retries "
          + maxRetries + ", backoff " + initialBackoffMs + " ms, buffer " + bufferCapacity + ", quiet "
          + batchQuietMs + " ms");
    }
  }

  /** The configured attempt timeout ({@code RECOVERY_ATTEMPT_TIMEOUT_MS}) with the spec's constants. */
  public static RecoverySettings from(RelayEngineConfig c) {
    return new RecoverySettings(c.recoveryAttemptTimeoutMs(), MAX_RETRIES, INITIAL_BACKOFF_MS, BUFFER_CAPACITY,
        BATCH_QUIET_MS);
  }

  /** The backoff before retry number {@code retry} (1-based): {@code initialBackoffMs × 2^(retry − 1)}. */
  public long backoffMs(int retry) {
    int shift = Math.max(0, Math.min(retry - 1, 30));
    long b = initialBackoffMs << shift;
    return b < 0 || (b >>> shift) != initialBackoffMs ? Long.MAX_VALUE / 2 : b;
  }
}
