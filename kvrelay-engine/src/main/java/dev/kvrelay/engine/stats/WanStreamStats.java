package dev.kvrelay.engine.stats;

import java.util.Objects;

/**
 * Immutable and thread-safe: the per-stream-type WAN counters of one engine (wan-grpc §8), read by the system
 * server's metrics at scrape time.
 *
 * @param catalog WatchKvPoolCatalog streams
 * @param pool SubscribeKvPool streams (lag and the per-pool and initialized-hub refusals are in
 *     {@link HubRegistryStats})
 * @param readiness SubscribeServingReadiness streams
 * @param load SubscribeKvPoolLoad streams
 * @param servingLoad SubscribeServingLoad streams
 * @param loadUpdates pool-load windows published after the startup window ({@code kv_dc_relay_load_updates_total})
 * @param servingLoadUpdates serving-load windows published after the startup window
 * @param degradedLoadCoveragePools pools of the current load window with fewer observed than expected ranks, or
 *     with unknown capacity ({@code kv_dc_relay_degraded_load_coverage_pool_count})
 */
public record WanStreamStats(
    StreamStats catalog,
    StreamStats pool,
    StreamStats readiness,
    StreamStats load,
    StreamStats servingLoad,
    long loadUpdates,
    long servingLoadUpdates,
    int degradedLoadCoveragePools) {

  /** Requires every stream's stats. */
  public WanStreamStats {
    Objects.requireNonNull(catalog, "catalog");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(readiness, "readiness");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(servingLoad, "servingLoad");
  }
}
