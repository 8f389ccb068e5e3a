package dev.kvrelay.engine;

import dev.kvrelay.engine.stats.LoadCounters;
import dev.kvrelay.engine.stats.PoolActorStats;
import dev.kvrelay.engine.stats.RecoveryStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the counters of one active pool generation.
 *
 * @param descriptor the pool's catalog descriptor
 * @param actor the actor's counters (with the producer's), or null if the actor did not answer in time
 * @param recovery the per-source recovery counters
 * @param load the load aggregator's counters
 */
public record PoolStats(
    KvPoolDescriptor descriptor, @Nullable PoolActorStats actor, RecoveryStats recovery, LoadCounters load) {}
