package dev.kvrelay.engine.stats;


/**
 * Immutable and thread-safe: cumulative counters of one {@code PoolLoadAggregator}.
 *
 * @param applied reports that stored or removed a value
 * @param ignoredAdvisory reports with neither kv usage nor a scheduler scope
 * @param stale reports with a sequence ≤ the publisher's last
 * @param gaps sequence gaps (each dropped that publisher's values)
 * @param unknownRank reports for undeclared ranks
 * @param discardedAboveCapacity kv values above the rank's known capacity
 * @param wrongTopic reports whose envelope topic is not {@code kv_metrics}
 * @param invalidRefreshes refreshes rejected as invalid (each cleared all state)
 * @param streamClears stream failures / closes that cleared observations
 * @param schedulerListingFailures failed discovery listings of the scheduler set (each made the scheduler view
 *     partial until a listing succeeded)
 */
public record LoadCounters(
    long applied,
    long ignoredAdvisory,
    long stale,
    long gaps,
    long unknownRank,
    long discardedAboveCapacity,
    long wrongTopic,
    long invalidRefreshes,
    long streamClears,
    long schedulerListingFailures) {}
