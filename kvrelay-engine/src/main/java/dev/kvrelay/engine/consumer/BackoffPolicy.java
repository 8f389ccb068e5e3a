package dev.kvrelay.engine.consumer;

import java.util.SplittableRandom;

/**
 * Immutable and thread-safe: the reconnect and resubscribe backoff of a {@link RelayConsumer} (wan-grpc.md
 * §7.6): the delay starts at {@code initialNanos}, doubles after each failure up to {@code maxNanos}, and is
 * reset once the stream delivers again. With jitter, each delay is "equal jitter": {@code d/2 + uniform[0, d/2]}.
 *
 * @param initialNanos the first delay, &gt; 0
 * @param maxNanos the largest delay, ≥ {@code initialNanos}
 * @param jitter whether to apply equal jitter
 */
public record BackoffPolicy(long initialNanos, long maxNanos, boolean jitter) {

  /** 100 ms, ×2, at most 5 s, with jitter. */
  public static final BackoffPolicy DEFAULT = new BackoffPolicy(100_000_000L, 5_000_000_000L, true);

  /**
   * Checks the bounds.
   *
   * @throws IllegalArgumentException if {@code initialNanos ≤ 0} or {@code maxNanos < initialNanos}
   */
  public BackoffPolicy {
    if (initialNanos <= 0 || maxNanos < initialNanos) {
      throw new IllegalArgumentException(
          "backoff needs 0 < initial <= max, got initial=" + initialNanos + " max=" + maxNanos);
    }
  }

  /** The base delay after {@code failures} consecutive failures (≥ 1), before jitter. */
  long baseDelay(int failures) {
    long d = initialNanos;
    for (int i = 1; i < failures && d < maxNanos; i++) {
      d = d > maxNanos / 2 ? maxNanos : d * 2;
    }
    return Math.min(d, maxNanos);
  }

  /** The delay to wait after {@code failures} consecutive failures (≥ 1). */
  long delay(int failures, SplittableRandom random) {
    long d = baseDelay(failures);
    if (!jitter) {
      return d;
    }
    long half = d / 2;
    return half + random.nextLong(d - half + 1);
  }
}
