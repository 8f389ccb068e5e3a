package dev.kvrelay.ckf.consumer;

import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: the reusable result and scratch of {@link GlobalCkfIndexer#query}, owned by one querying
 * thread and overwritten by each query. Reports the captured ready lanes and, for each of them (including
 * depth 0), its physical lane, owner and prefix depth.
 *
 * @param <P> the engine's pool identity type
 */
public final class GlobalCkfQueryResult<P> {
  private final GlobalCkfIndexer<P> indexer;
  private final PrefixSearchScratch scratch = new PrefixSearchScratch();
  private int capturedReadyLanes;

  GlobalCkfQueryResult(GlobalCkfIndexer<P> indexer) {
    this.indexer = indexer;
    scratch.probes.bindTable(indexer.table(), indexer.addressing());
  }

  GlobalCkfIndexer<P> indexer() {
    return indexer;
  }

  void begin(int captured) {
    capturedReadyLanes = captured;
    scratch.reset();
  }

  /** Runs the search against the table; {@code window} was validated when the indexer was built. */
  void search(long[] hashes, int captured, int window) {
    QueryProbes probes = scratch.probes;
    probes.beginTableQuery(hashes);
    try {
      PrefixDepthSearch.search(hashes.length, captured, window, scratch);
    } finally {
      probes.endTableQuery();
    }
  }

  /** Lanes ready (and configured) when the query captured the mask; 0 after {@code UNAVAILABLE}. */
  public int capturedReadyLanes() {
    return capturedReadyLanes;
  }

  /** True if {@code lane} was captured ready, i.e. the result reports it (even with depth 0). */
  public boolean reports(int lane) {
    return lane >= 0 && lane < TransposedCkfTable.LANES && (capturedReadyLanes & (1 << lane)) != 0;
  }

  /** Prefix depth of a reported lane in blocks; 0 for lanes not reported. */
  public int prefixDepth(int lane) {
    return reports(lane) ? scratch.depth(lane) : 0;
  }

  /** Owner (pool and dc id) of a reported lane, or null if the lane is not reported. */
  public @Nullable CkfLaneOwner<P> owner(int lane) {
    return reports(lane) ? indexer.manifest().owner(lane) : null;
  }

  /** Number of fallback probe calls the last search made (diagnostics). */
  public int fallbackProbeCalls() {
    return scratch.fallbackProbeCalls();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("GlobalCkfQueryResult[ready=0x")
        .append(Integer.toHexString(capturedReadyLanes)).append(", depths={");
    String sep = "";
    for (int lane = 0; lane < TransposedCkfTable.LANES; lane++) {
      if (reports(lane)) {
        sb.append(sep).append(lane).append('=').append(scratch.depth(lane));
        sep = ", ";
      }
    }
    return sb.append("}]").toString();
  }
}
