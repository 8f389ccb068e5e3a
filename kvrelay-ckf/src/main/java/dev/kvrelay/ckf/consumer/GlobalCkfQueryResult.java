package dev.kvrelay.ckf.consumer;

import dev.kvrelay.ckf.CkfAddressing;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: the reusable result and scratch of {@link GlobalCkfIndexer#query}, owned by one querying
 * thread and overwritten by each query. Reports the captured ready lanes and, for each of them (including
 * depth 0), its physical lane, owner and prefix depth.
 *
 * @param <P> the engine's pool identity type
 */
public final class GlobalCkfQueryResult<P> {
  private static final long[] NO_HASHES = new long[0];

  private final GlobalCkfIndexer<P> indexer;
  private final PrefixSearchScratch scratch = new PrefixSearchScratch();
  private final TableProbe probe;
  private int capturedReadyLanes;

  GlobalCkfQueryResult(GlobalCkfIndexer<P> indexer) {
    this.indexer = indexer;
    this.probe = new TableProbe(indexer.table(), indexer.addressing());
  }

  GlobalCkfIndexer<P> indexer() {
    return indexer;
  }

  void begin(int captured) {
    capturedReadyLanes = captured;
    scratch.reset();
  }

  void search(long[] hashes, int captured, int window) {
    probe.begin(hashes);
    try {
      PrefixDepthSearch.find(hashes.length, captured, window, probe, scratch);
    } finally {
      probe.end();
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

  /** Confined to the querying thread: a table-backed probe that prepares each position at most once per query (generation stamps). */
  private static final class TableProbe implements LaneProbe {
    private final TransposedCkfTable table;
    private final CkfAddressing addressing;
    private long[] hashes = NO_HASHES;
    private long[] prepared = new long[64];
    private int[] stamps = new int[64];
    private int stamp;

    TableProbe(TransposedCkfTable table, CkfAddressing addressing) {
      this.table = table;
      this.addressing = addressing;
    }

    void begin(long[] hashes) {
      int n = hashes.length;
      if (prepared.length < n) {
        int capacity = Math.max(n, prepared.length * 2);
        prepared = new long[capacity];
        stamps = new int[capacity];
        stamp = 0;
      }
      if (++stamp == 0) {
        Arrays.fill(stamps, 0);
        stamp = 1;
      }
      this.hashes = hashes;
    }

    void end() {
      hashes = NO_HASHES;
    }

    @Override
    public int probe(int position, int lanes) {
      long packed;
      if (stamps[position] == stamp) {
        packed = prepared[position];
      } else {
        packed = addressing.prepare(hashes[position]);
        prepared[position] = packed;
        stamps[position] = stamp;
      }
      return table.probe(packed, lanes);
    }
  }
}
