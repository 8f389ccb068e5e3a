package dev.kvrelay.engine.consumer;

import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Immutable and thread-safe: one pool's load as a consumer may read it (wan-grpc.md §4.1 "consumer
 * meaning"): the values are authoritative only if observed == expected, expected &gt; 0 and total &gt; 0; a 0
 * on the wire is never read as zero load.
 *
 * @param entry the received entry (joined to the catalog by its ProducerKey)
 * @param receivedUs the local receive time (µs) of the window
 */
public record PoolLoad(KvPoolLoadEntry entry, long receivedUs) {
  /** Rejects a null entry. */
  public PoolLoad {
    Objects.requireNonNull(entry, "entry");
  }

  /** The authoritative rule: {@code observed == expected && expected > 0 && total > 0}. */
  public boolean authoritative() {
    return entry.kvExpectedRanks() > 0
        && entry.kvObservedRanks() == entry.kvExpectedRanks()
        && entry.totalKvBlocks() != 0;
  }

  /** The used blocks (unsigned), present only when {@link #authoritative()}. */
  public OptionalLong usedBlocks() {
    return authoritative() ? OptionalLong.of(entry.kvUsedBlocks()) : OptionalLong.empty();
  }

  /** The total blocks (unsigned), present only when {@link #authoritative()}. */
  public OptionalLong totalBlocks() {
    return authoritative() ? OptionalLong.of(entry.totalKvBlocks()) : OptionalLong.empty();
  }
}
