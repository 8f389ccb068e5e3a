/**
 * The counters {@code RelayEngine.stats()} reports, as immutable snapshots: two types an embedder names, {@link
 * dev.kvrelay.engine.stats.RelayEngineStats} (the engine: hubs and their subscribers' lag, WAN streams, event-plane
 * faults) and {@link dev.kvrelay.engine.stats.PoolStats} (one pool generation: its actor, recovery with one entry
 * per source, and load aggregation). Their parts are nested in them ({@code PoolStats.Actor}, {@code
 * RelayEngineStats.Hubs}, …), so the package exports two top-level types. Values only: this package depends on no
 * engine package but the WAN values.
 */
@NullMarked
package dev.kvrelay.engine.stats;

import org.jspecify.annotations.NullMarked;
