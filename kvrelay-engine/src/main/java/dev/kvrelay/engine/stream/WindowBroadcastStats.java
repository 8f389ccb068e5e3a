package dev.kvrelay.engine.stream;

/**
 * Immutable and thread-safe: counters and gauges of one {@link WindowBroadcast}.
 *
 * @param published windows published after the initial one
 * @param ignoredAfterClose windows refused because the broadcast was already closed
 * @param subscribers streams currently attached
 * @param lagged streams ended with SUBSCRIBER_LAGGED because they fell behind the ring
 * @param closed whether the broadcast is closed
 */
public record WindowBroadcastStats(
    long published, long ignoredAfterClose, int subscribers, long lagged, boolean closed) {}
