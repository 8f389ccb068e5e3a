package dev.kvrelay.engine.stats;

/**
 * Immutable and thread-safe: the gauges and counters of one WAN stream type (wan-grpc §8
 * {@code kv_dc_relay_subscribers}, {@code _subscriber_lagged_total}, {@code _subscriber_limit_rejected_total}
 * with {@code scope="total"}).
 *
 * @param subscribers streams of this type open now (admission permits held)
 * @param lagged streams of this type ended SUBSCRIBER_LAGGED so far (0 for latest-value streams, which never lag)
 * @param limitRejected subscribes refused by this type's relay-wide admission limit so far
 */
public record StreamStats(int subscribers, long lagged, long limitRejected) {}
