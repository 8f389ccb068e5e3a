package dev.kvrelay.engine.load;

import java.util.OptionalLong;

/**
 * Immutable and thread-safe: the load of one pool at one instant (producer.md §6, wan-grpc.md §4.1).
 *
 * @param kvUsedBlocks saturating Σ of fresh valid {@code kv_used_blocks}, present only if
 *     {@code observed == expected > 0} (u64)
 * @param totalKvBlocks saturating Σ of known capacities, present only if {@code capacity == expected > 0} (u64)
 * @param kvObservedRanks declared ranks with a fresh valid kv value
 * @param kvExpectedRanks declared ranks
 * @param kvCapacityRanks declared ranks with known (nonzero) capacity
 * @param scheduler the scheduler-view aggregate
 * @param sourceObservedMs oldest {@code published_at} of a contributing kv value, 0 when none
 */
public record PoolLoadSnapshot(
    OptionalLong kvUsedBlocks,
    OptionalLong totalKvBlocks,
    long kvObservedRanks,
    long kvExpectedRanks,
    long kvCapacityRanks,
    SchedulerLoad scheduler,
    long sourceObservedMs) {

  /** A pool with no declared ranks and no observation. */
  public static final PoolLoadSnapshot EMPTY =
      new PoolLoadSnapshot(OptionalLong.empty(), OptionalLong.empty(), 0, 0, 0, SchedulerLoad.UNAVAILABLE, 0);

  /** Consumer meaning (wan-grpc.md §4.1): observed == expected, expected > 0 and total > 0. */
  public boolean authoritative() {
    return kvExpectedRanks > 0
        && kvObservedRanks == kvExpectedRanks
        && kvUsedBlocks.isPresent()
        && totalKvBlocks.isPresent()
        && totalKvBlocks.getAsLong() != 0;
  }
}
