package dev.kvrelay.engine.wire;

import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import java.util.List;

/**
 * Immutable and thread-safe: one {@code KvPoolLoadUpdate} window without relay identity and markers
 * (the gRPC layer adds those).
 *
 * @param windowSequence 0 for the startup window, then 1, 2, … (u64)
 * @param observedMs producer wall clock when the window was built (Unix ms)
 * @param windowMs the configured window (u64)
 * @param pools entries sorted by pool id, unique pool ids
 */
public record KvPoolLoadUpdate(long windowSequence, long observedMs, long windowMs, List<KvPoolLoadEntry> pools) {

  /** Copies the list. */
  public KvPoolLoadUpdate {
    pools = List.copyOf(pools);
  }
}
