package dev.kvrelay.spi.eventplane;

import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one load report of one worker rank, the payload of a {@code kv_metrics}
 * message ({@code ActiveLoad}, runtime-inputs.md §8). Every count is unsigned 64-bit; absent counts are
 * nil on the wire.
 *
 * @param workerId {@code worker_id}
 * @param dpRank {@code dp_rank} (unsigned 32-bit; 0 when absent)
 * @param activeDecodeBlocks {@code active_decode_blocks}
 * @param activePrefillTokens {@code active_prefill_tokens}
 * @param schedulerLoadScope {@code scheduler_load_scope} (scheduler-origin reports only), or {@code null}
 * @param kvUsedBlocks {@code kv_used_blocks} (worker-origin, authoritative occupancy)
 */
public record ActiveLoad(
    long workerId,
    int dpRank,
    OptionalLong activeDecodeBlocks,
    OptionalLong activePrefillTokens,
    @Nullable SchedulerLoadScope schedulerLoadScope,
    OptionalLong kvUsedBlocks) {

  /** Requires non-null optionals. */
  public ActiveLoad {
    Objects.requireNonNull(activeDecodeBlocks, "activeDecodeBlocks");
    Objects.requireNonNull(activePrefillTokens, "activePrefillTokens");
    Objects.requireNonNull(kvUsedBlocks, "kvUsedBlocks");
  }
}
