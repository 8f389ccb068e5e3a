package dev.kvrelay.benchmarks;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CkfSizing;
import dev.kvrelay.ckf.CuckooTable;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.ckf.consumer.CkfLaneOwner;
import dev.kvrelay.ckf.consumer.GlobalCkfBuildException;
import dev.kvrelay.ckf.consumer.GlobalCkfIndexer;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.GlobalCkfManifest;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryResult;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryStatus;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneIngestOutcome;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.ckf.hashing.SequenceHash;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Consumer query latency ({@code ckf-cbi1.md} §7): {@link GlobalCkfIndexer#query} of one request over
 * {@code lanes} ready lanes of a B = 524 288 transposed table (64 MiB, larger than a typical L3), default
 * verification window W = 2. One op = one request; SampleTime reports p50/p99 (the {@code ·p0.50} and
 * {@code ·p0.99} rows), AverageTime the mean.
 *
 * <p>Fixture: {@code R = 2^18 / depth} distinct requests (16 384, 4 096, 1 024), each of {@code 2·depth}
 * canonical hashes (a random block-hash chain through {@link SequenceHash}), queried round-robin so the
 * probed buckets are spread over the table ({@link RequestSet#SINGLE}, not run by default, repeats one
 * request instead to show the cache-hot cost). Lane {@code l} holds, for every request, the fingerprints of
 * its first {@code d(r, l)} canonical hashes: {@code d = depth} for {@link LaneDepths#FULL}, uniform in
 * {@code [0, depth]} for {@link LaneDepths#STAGGERED}. Each lane's snapshot is built directly as words:
 * the request hashes inserted into a fresh {@link CuckooTable} with relocation, as the producer admits
 * them (at most 12.5 % of the slots), then random non-zero background fingerprints in the remaining
 * slots up to 50 % slot occupancy (the producer's design load at E blocks). The snapshot is
 * installed through the real lane state machine (claim, assign, {@code installSnapshot}).
 *
 * <p>{@link #setUp()} queries every request once and checks each lane's depth: never below {@code d}, and
 * above it (a background false positive at the boundary) for at most 0.1 % of the lane results.
 */
@State(Scope.Thread)
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PrefixQueryBenchmark {
  static final int BUCKETS = 524_288;
  /** Requests × depth: bounds the request fingerprints per lane to 12.5 % of the slots. */
  static final int PREFIX_BUDGET = 1 << 18;
  static final double SLOT_OCCUPANCY = 0.5;
  static final long CONSUMER = 0xC0DEL;

  /** How deep each lane holds each request. */
  public enum LaneDepths {
    /** Every lane holds the first {@code depth} hashes of every request. */
    FULL,
    /** Each (request, lane) holds a uniform random prefix length in {@code [0, depth]}. */
    STAGGERED
  }

  @Param({"1", "4", "16"})
  int lanes;

  /** Prefix held per lane; the request is {@code 2·depth} blocks long. */
  @Param({"16", "64", "256"})
  int depth;

  @Param({"FULL", "STAGGERED"})
  LaneDepths laneDepths;

  /** Which requests are queried: all of them round-robin, or only the first (cache-hot diagnosis). */
  public enum RequestSet {
    /** Round-robin over all R requests: the probed buckets come from DRAM. */
    SPREAD,
    /** The first request over and over: its buckets stay in L1/L2 (the pure CPU cost of the search). */
    SINGLE
  }

  /** Only {@code SPREAD} by default; run {@code -p requestSet=SINGLE} for the cache-hot case. */
  @Param({"SPREAD"})
  RequestSet requestSet;

  int cursorMask;

  GlobalCkfIndexer<String> indexer;
  GlobalCkfQueryResult<String> result;
  long[][] requests;
  int cursor;

  @Setup
  public void setUp() throws GlobalCkfBuildException, CkfConfigException {
    SplittableRandom r = new SplittableRandom(0x9F1 ^ ((long) depth << 8) ^ lanes);
    CkfFormat format = CkfFormat.withDefaultSeed(BUCKETS);
    int requestCount = PREFIX_BUDGET / depth;
    int n = 2 * depth;

    requests = new long[requestCount][];
    for (int q = 0; q < requestCount; q++) {
      long[] blocks = new long[n];
      for (int i = 0; i < n; i++) {
        blocks[i] = r.nextLong();
      }
      requests[q] = SequenceHash.chain(blocks);
    }
    int[][] held = new int[requestCount][lanes];
    for (int q = 0; q < requestCount; q++) {
      for (int l = 0; l < lanes; l++) {
        held[q][l] = laneDepths == LaneDepths.FULL ? depth : r.nextInt(depth + 1);
      }
    }

    List<CkfLaneOwner<String>> owners = new ArrayList<>();
    for (int l = 0; l < lanes; l++) {
      owners.add(new CkfLaneOwner<>("pool-" + l, 0x100 + l));
    }
    indexer = GlobalCkfIndexer.create(GlobalCkfManifest.of(CONSUMER, format, owners));
    for (int l = 0; l < lanes; l++) {
      long[] words = laneWords(format, requests, held, l, r);
      GlobalCkfLaneIngestor<String> ingestor = indexer.claimLane(l);
      LaneLease lease = new LaneLease(CONSUMER, l, 1);
      LaneAssignmentResult assigned = ingestor.assign("pool-" + l, format, lease);
      if (assigned != LaneAssignmentResult.ASSIGNED) {
        throw new IllegalStateException("lane " + l + ": " + assigned);
      }
      LaneIngestOutcome installed = ingestor.installSnapshot(lease, "pool-" + l, 1, words);
      if (installed != LaneIngestOutcome.SNAPSHOT_INSTALLED) {
        throw new IllegalStateException("lane " + l + ": " + installed);
      }
    }
    result = indexer.newQueryResult();
    checkDepths(held);
    cursorMask = requestSet == RequestSet.SPREAD ? requestCount - 1 : 0;
  }

  /**
   * One lane's B words: the held request hashes inserted into a fresh {@link CuckooTable} (with
   * relocation, as the producer admits new hashes), then random background fingerprints in the empty
   * slots up to the slot occupancy.
   */
  static long[] laneWords(CkfFormat format, long[][] requests, int[][] held, int lane, SplittableRandom r)
      throws CkfConfigException {
    CuckooTable table = CuckooTable.create(format, CkfSizing.DEFAULT_MAX_KICKS);
    long placed = 0;
    for (int q = 0; q < requests.length; q++) {
      for (int i = 0; i < held[q][lane]; i++) {
        if (!table.insert(requests[q][i], CuckooTable.IGNORE_WRITES)) {
          throw new IllegalStateException("capacity exhausted at " + placed + " request hashes");
        }
        placed++;
      }
    }
    long[] words = table.copyWords();
    long slots = 4L * BUCKETS;
    double background = (SLOT_OCCUPANCY * slots - placed) / (slots - placed);
    for (int b = 0; b < BUCKETS; b++) {
      long w = words[b];
      for (int s = 0; s < PackedBucket.SLOTS; s++) {
        if (PackedBucket.slot(w, s) == PackedBucket.EMPTY_SLOT && r.nextDouble() < background) {
          w = PackedBucket.withSlot(w, s, 1 + r.nextInt(0xFFFF));
        }
      }
      words[b] = w;
    }
    return words;
  }

  private void checkDepths(int[][] held) {
    int allLanes = (1 << lanes) - 1;
    int over = 0;
    for (int q = 0; q < requests.length; q++) {
      GlobalCkfQueryStatus status = indexer.query(requests[q], result);
      if (status != GlobalCkfQueryStatus.ANSWERED || result.capturedReadyLanes() != allLanes) {
        throw new IllegalStateException("request " + q + ": " + status + ", " + result);
      }
      for (int l = 0; l < lanes; l++) {
        int got = result.prefixDepth(l);
        if (got < held[q][l]) {
          throw new IllegalStateException("request " + q + " lane " + l + ": depth " + got + " < " + held[q][l]);
        }
        if (got > held[q][l]) {
          over++;
        }
      }
    }
    if (over > requests.length * lanes / 1000) {
      throw new IllegalStateException(over + " over-reported lane depths of " + requests.length * lanes);
    }
  }

  /** One request's prefix depths over all configured lanes. */
  @Benchmark
  public int query() {
    long[] request = requests[cursor];
    cursor = (cursor + 1) & cursorMask;
    GlobalCkfQueryStatus status = indexer.query(request, result);
    return status.ordinal() + result.prefixDepth(0);
  }
}
