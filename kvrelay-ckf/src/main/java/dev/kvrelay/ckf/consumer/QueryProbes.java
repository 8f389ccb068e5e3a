package dev.kvrelay.ckf.consumer;

import dev.kvrelay.ckf.CkfAddressing;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: the membership oracle of one search at a time, owned by a {@link PrefixSearchScratch}.
 * It answers either through an external {@link LaneProbe} (the public search entry point) or straight from
 * a {@link TransposedCkfTable}, so the table-backed query path is one monomorphic, inlinable final call no
 * matter which other {@code LaneProbe} implementations the JVM has seen.
 *
 * <p>Table mode memoises per query and position: the packed address (one XXH3 {@code prepare} per position
 * per query), the lanes already examined and their answers. A later probe of the same position for lanes
 * already examined reads no table word again, so within one query every (position, lane) answer comes from
 * one opaque read of that lane's two bucket words. Answering a repeated probe from that earlier read is one
 * of the outcomes the weak-read contract already allows (ckf-cbi1.md §7: no seqlock, no retry).
 */
final class QueryProbes {
  private static final long[] NO_HASHES = new long[0];
  private static final int INITIAL_POSITIONS = 64;

  private @Nullable LaneProbe external;
  private @Nullable TransposedCkfTable table;
  private @Nullable CkfAddressing addressing;
  private long[] hashes = NO_HASHES;
  /** Per position: packed address, valid when the memo's stamp is current. */
  private long[] prepared = new long[0];
  /** Per position: {@code stamp << 32 | examinedLanes << 16 | hitLanes}. */
  private long[] memo = new long[0];
  private int stamp;
  /** Keeps the warm-up loads observable so the JIT cannot drop them. */
  @SuppressWarnings("UnusedVariable") // written only, on purpose: the store keeps the warm-up loads alive
  private long touched;

  /** Table mode for every later {@link #beginTableQuery}; allocates the position memo. */
  void bindTable(TransposedCkfTable table, CkfAddressing addressing) {
    this.table = table;
    this.addressing = addressing;
    this.prepared = new long[INITIAL_POSITIONS];
    this.memo = new long[INITIAL_POSITIONS];
    this.stamp = 0;
  }

  /** Starts a table-backed search over {@code hashes}; grows the memo only for a longer request than ever. */
  void beginTableQuery(long[] hashes) {
    int n = hashes.length;
    if (memo.length < n) {
      int capacity = Math.max(n, memo.length * 2);
      prepared = new long[capacity];
      memo = new long[capacity];
      stamp = 0;
    }
    if (++stamp == 0) {
      java.util.Arrays.fill(memo, 0L);
      stamp = 1;
    }
    this.hashes = hashes;
    touchHashes(n);
    warmGallopingPositions(n);
  }

  /**
   * Reads one hash per cache line of the request, so that the lines a later bisection level prepares from
   * are not each a miss on that level's critical path when the caller's hashes are not cache-resident
   * (measured −0.18 µs all-full on the DRAM query, whose 4 096 requests are 4 MiB of hashes).
   */
  private void touchHashes(int n) {
    if (n == 0) {
      return;
    }
    long[] h = hashes;
    long sink = h[n - 1];
    for (int i = 0; i < n; i += 8) {
      sink ^= h[i];
    }
    touched ^= sink;
  }

  /**
   * The galloping phase always probes positions 0, 1, 2, 4, 8, … below {@code n}, in that order, each
   * waiting on the previous answer. Preparing them and touching their buckets first lets their cache misses
   * overlap instead of queueing one behind the other (the answers are still read later, by the probes).
   */
  private void warmGallopingPositions(int n) {
    TransposedCkfTable table = this.table;
    CkfAddressing addressing = this.addressing;
    if (table == null || addressing == null) {
      throw unbound();
    }
    long sink = 0;
    int current = stamp;
    for (int p = 0; p < n; p = p == 0 ? 1 : p << 1) {
      long packed = addressing.prepare(hashes[p]);
      prepared[p] = packed;
      memo[p] = (long) current << 32;
      sink ^= table.touch(packed);
    }
    touched ^= sink;
  }

  /** Ends a table-backed search (drops the request's hashes). */
  void endTableQuery() {
    hashes = NO_HASHES;
  }

  /**
   * Prepares {@code position} and touches what a probe of {@code lanes} reads there, without answering, so
   * that a later probe of it finds its words in cache. No effect for an external probe or a position
   * already prepared in this query.
   */
  void warm(int position, int lanes) {
    if (external != null || (int) (memo[position] >>> 32) == stamp) {
      return;
    }
    TransposedCkfTable table = this.table;
    CkfAddressing addressing = this.addressing;
    if (table == null || addressing == null) {
      throw unbound();
    }
    long packed = addressing.prepare(hashes[position]);
    prepared[position] = packed;
    memo[position] = (long) stamp << 32;
    touched ^= table.touch(packed, lanes);
  }

  /** Routes the following probes to {@code probe} until {@link #clearExternal()}. */
  void useExternal(LaneProbe probe) {
    external = probe;
  }

  void clearExternal() {
    external = null;
  }

  /** Presence mask of {@code position}: bits of {@code lanes} are exact, other bits may be anything. */
  int probe(int position, int lanes) {
    LaneProbe delegate = external;
    if (delegate != null) {
      return delegate.probe(position, lanes);
    }
    return probeTable(position, lanes);
  }

  /** Table probe through the per-position memo: only lanes not yet examined at the position are read. */
  private int probeTable(int position, int lanes) {
    TransposedCkfTable table = this.table;
    CkfAddressing addressing = this.addressing;
    if (table == null || addressing == null) {
      throw unbound();
    }
    long state = memo[position];
    int current = stamp;
    long packed;
    int examined;
    int hits;
    if ((int) (state >>> 32) == current) {
      examined = (int) (state >>> 16) & TransposedCkfTable.ALL_LANES;
      hits = (int) state & TransposedCkfTable.ALL_LANES;
      if ((lanes & ~examined) == 0) {
        return hits;
      }
      packed = prepared[position];
    } else {
      packed = addressing.prepare(hashes[position]);
      prepared[position] = packed;
      examined = 0;
      hits = 0;
    }
    int needed = lanes & ~examined;
    hits |= table.probe(packed, needed);
    examined |= needed;
    memo[position] = ((long) current << 32) | ((long) examined << 16) | hits;
    return hits;
  }

  /** A table query on a scratch that was never bound to a table: a caller bug inside this package. */
  private static IllegalStateException unbound() {
    return new IllegalStateException("no table bound: bindTable must precede a table query");
  }
}
