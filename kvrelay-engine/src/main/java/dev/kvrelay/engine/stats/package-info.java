/**
 * The counters {@code RelayEngine.stats()} reports, as immutable snapshots: per pool actor ({@link
 * dev.kvrelay.engine.stats.PoolActorStats}), recovery ({@link dev.kvrelay.engine.stats.RecoveryStats}, per source {@link
 * dev.kvrelay.engine.stats.SourceRecoveryStats}), load
 * aggregation ({@link dev.kvrelay.engine.stats.LoadCounters}) and the publication hubs ({@link
 * dev.kvrelay.engine.stats.HubRegistryStats}). Values only: this package depends on no other engine package.
 */
@NullMarked
package dev.kvrelay.engine.stats;

import org.jspecify.annotations.NullMarked;
