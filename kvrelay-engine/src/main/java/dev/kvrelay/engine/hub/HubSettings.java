package dev.kvrelay.engine.hub;

import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.RelayEngineConfig;

/**
 * Immutable and thread-safe: the publication-hub knobs of wan-grpc.md §3.1.
 *
 * @param queueCapacity PUBLICATION_QUEUE_CAPACITY: frames queued per subscriber (≥ 1)
 * @param queueBytes PUBLICATION_QUEUE_BYTES: payload bytes + 256 per frame queued per subscriber (≥ 1)
 * @param heartbeatIntervalMs POOL_HEARTBEAT_INTERVAL_MS: idle time before a HEARTBEAT frame (≥ 1)
 * @param snapshotProgressTimeoutMs SNAPSHOT_PROGRESS_TIMEOUT_MS: per-chunk bootstrap deadline (≥ 1)
 * @param maxSubscribersPerPool MAX_SUBSCRIBERS_PER_POOL: subscribers per hub (≥ 1)
 * @param maxInitializedHubs MAX_INITIALIZED_POOL_HUBS: resident hubs, idle ones included (≥ 1)
 * @param encodingConcurrency PUBLICATION_ENCODING_CONCURRENCY: concurrent snapshot bootstraps (≥ 1)
 */
public record HubSettings(
    int queueCapacity,
    long queueBytes,
    long heartbeatIntervalMs,
    long snapshotProgressTimeoutMs,
    int maxSubscribersPerPool,
    int maxInitializedHubs,
    int encodingConcurrency) {

  /** Rejects non-positive values (configuration, not wire input). */
  public HubSettings {
    positive("queueCapacity", queueCapacity);
    positive("queueBytes", queueBytes);
    positive("heartbeatIntervalMs", heartbeatIntervalMs);
    positive("snapshotProgressTimeoutMs", snapshotProgressTimeoutMs);
    positive("maxSubscribersPerPool", maxSubscribersPerPool);
    positive("maxInitializedHubs", maxInitializedHubs);
    positive("encodingConcurrency", encodingConcurrency);
  }

  /** The hub knobs of a validated engine configuration. */
  public static HubSettings from(RelayEngineConfig config) {
    return new HubSettings(
        (int) config.value(RelayConfigKey.PUBLICATION_QUEUE_CAPACITY),
        config.value(RelayConfigKey.PUBLICATION_QUEUE_BYTES),
        config.value(RelayConfigKey.POOL_HEARTBEAT_INTERVAL_MS),
        config.value(RelayConfigKey.SNAPSHOT_PROGRESS_TIMEOUT_MS),
        (int) config.value(RelayConfigKey.MAX_SUBSCRIBERS_PER_POOL),
        (int) config.value(RelayConfigKey.MAX_INITIALIZED_POOL_HUBS),
        (int) config.value(RelayConfigKey.PUBLICATION_ENCODING_CONCURRENCY));
  }

  private static void positive(String name, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, got " + value);
    }
  }
}
