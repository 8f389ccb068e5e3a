package dev.kvrelay.engine.wan;

import dev.kvrelay.api.ProducerIdentity;

/**
 * Immutable and thread-safe: one {@code KvPoolLoadEntry} (wan-grpc.md §1.6, mapping §4.1).
 *
 * @param producer the pool's producer identity
 * @param kvUsedBlocks the aggregate, or 0 when unavailable (u64; a saturated sum is u64 max)
 * @param totalKvBlocks the aggregate capacity, or 0 when unknown (u64)
 * @param kvObservedRanks observed ranks saturated to u32 (0..4294967295)
 * @param kvExpectedRanks expected ranks saturated to u32 (0..4294967295)
 */
public record KvPoolLoadEntry(
    ProducerIdentity producer, long kvUsedBlocks, long totalKvBlocks, long kvObservedRanks, long kvExpectedRanks) {

  /** Largest u32. */
  public static final long U32_MAX = 0xFFFF_FFFFL;
}
