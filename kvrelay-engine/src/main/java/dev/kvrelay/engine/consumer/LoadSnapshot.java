package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Immutable and thread-safe: the published state of one {@code LoadView} (wan-grpc.md §4.1, §7.5).
 *
 * @param hasWindow true once a window was applied since the last reset
 * @param windowSequence the applied {@code window_sequence} (unsigned), meaningful when {@code hasWindow}
 * @param receivedUs the local receive time (µs) of the window (freshness), 0 before the first
 * @param pools the entries whose ProducerKey equals the catalog's producer of their pool, by pool
 * @param unjoined entries whose pool is not in the catalog or whose producer differs (never read)
 * @param ambiguous pools listed more than once in the window (never read)
 */
public record LoadSnapshot(
    boolean hasWindow,
    long windowSequence,
    long receivedUs,
    Map<KvPoolId, PoolLoad> pools,
    List<KvPoolLoadEntry> unjoined,
    Set<KvPoolId> ambiguous) {

  /** No window yet. */
  public static final LoadSnapshot EMPTY = new LoadSnapshot(false, 0, 0, Map.of(), List.of(), Set.of());

  /** Copies the collections. */
  public LoadSnapshot {
    pools = Map.copyOf(pools);
    unjoined = List.copyOf(unjoined);
    ambiguous = Set.copyOf(ambiguous);
  }

  /** The joined load of {@code pool}, if any. */
  public Optional<PoolLoad> pool(KvPoolId pool) {
    return Optional.ofNullable(pools.get(pool));
  }

  /** True if a window was received within {@code maxAgeUs} before {@code nowUs} (local receive time). */
  public boolean isFresh(long nowUs, long maxAgeUs) {
    return hasWindow && (nowUs <= receivedUs || nowUs - receivedUs <= maxAgeUs);
  }
}
