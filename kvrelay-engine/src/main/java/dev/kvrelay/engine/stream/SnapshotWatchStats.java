package dev.kvrelay.engine.stream;

/**
 * Immutable and thread-safe: counters and gauges of one {@link SnapshotWatch}.
 *
 * @param published values published after the initial one (= the current value's version)
 * @param ignoredAfterClose publications refused because the watch was already closed
 * @param subscribers streams currently attached
 * @param closed whether the watch is closed
 */
record SnapshotWatchStats(long published, long ignoredAfterClose, int subscribers, boolean closed) {}
