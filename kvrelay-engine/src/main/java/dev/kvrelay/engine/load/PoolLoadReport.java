package dev.kvrelay.engine.load;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;

/**
 * Immutable and thread-safe: one active pool with serving facts and its load, the input of a window.
 *
 * @param producer the pool's producer identity
 * @param load its load snapshot
 */
public record PoolLoadReport(ProducerIdentity producer, PoolLoadSnapshot load) {

  /** The wire mapping of this pool's load (rank counts saturate at u32). */
  public KvPoolLoadEntry toEntry() {
    return new KvPoolLoadEntry(producer, load.kvUsedBlocks().orElse(0), load.totalKvBlocks().orElse(0),
        saturateU32(load.kvObservedRanks()), saturateU32(load.kvExpectedRanks()));
  }

  private static long saturateU32(long count) {
    return count < 0 || count > KvPoolLoadEntry.U32_MAX ? KvPoolLoadEntry.U32_MAX : count;
  }
}
