package dev.kvrelay.engine.load;

/**
 * Immutable and thread-safe: one declared rank, {@code (worker_id, dp_rank)}.
 *
 * @param workerId unsigned 64-bit worker id
 * @param dpRank unsigned 32-bit DP rank, widened
 */
record RankKey(long workerId, long dpRank) {}
