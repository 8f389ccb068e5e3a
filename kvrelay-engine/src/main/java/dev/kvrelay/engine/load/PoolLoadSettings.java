package dev.kvrelay.engine.load;

/**
 * Immutable and thread-safe: tuning of a {@link PoolLoadAggregator}.
 *
 * <p>Following the wan-grpc.md §4.1 decision box, the 5 s freshness of worker {@code kv_used_blocks}
 * values is configurable and <b>off by default</b> (the worker heartbeat is 10 s). Scheduler views always
 * expire after {@code schedulerFreshnessMs} (3 × the scheduler publish interval, wan-grpc.md §4.2).
 *
 * @param kvFreshnessEnabled whether a kv value counts only if received at most {@link #KV_FRESHNESS_MS} ago
 * @param schedulerFreshnessMs how long a scheduler view stays fresh after it was received, ≥ 1
 */
public record PoolLoadSettings(boolean kvFreshnessEnabled, long schedulerFreshnessMs) {

  /** Freshness window of kv values when enabled (producer.md §6). */
  public static final long KV_FRESHNESS_MS = 5_000;

  /**
   * Assumed scheduler publish interval. Upstream value unknown (wan-grpc.md §4.2 decision box): confirm
   * against upstream {@code serving_load.rs} before release.
   */
  public static final long DEFAULT_SCHEDULER_PUBLISH_INTERVAL_MS = 1_000;

  /** Freshness off, scheduler freshness 3 × {@link #DEFAULT_SCHEDULER_PUBLISH_INTERVAL_MS}. */
  public static final PoolLoadSettings DEFAULT =
      new PoolLoadSettings(false, 3 * DEFAULT_SCHEDULER_PUBLISH_INTERVAL_MS);

  /**
   * @throws IllegalArgumentException if {@code schedulerFreshnessMs < 1}
   */
  public PoolLoadSettings {
    if (schedulerFreshnessMs < 1) {
      throw new IllegalArgumentException("schedulerFreshnessMs must be >= 1, got " + schedulerFreshnessMs);
    }
  }
}
