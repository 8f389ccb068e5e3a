package dev.kvrelay.ckf.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import java.util.Arrays;

/** One indexer with lanes 3 ("pool-a", dc 41) and 5 ("pool-b", dc 42), B = 64; lane 3 claimed and assigned. */
final class LaneFixture {
  static final long CONSUMER = 17;
  static final CkfFormat FORMAT = CkfFormat.of(0x5EEDL, 64);
  static final int B = 64;
  static final int LANE = 3;
  static final String POOL = "pool-a";

  final GlobalCkfIndexer<String> indexer;
  final GlobalCkfLaneIngestor<String> ingestor;
  LaneLease lease = new LaneLease(CONSUMER, LANE, 1);

  LaneFixture() {
    try {
      CkfLaneOwner<String>[] lanes = newOwners(6);
      lanes[LANE] = new CkfLaneOwner<>(POOL, 41);
      lanes[5] = new CkfLaneOwner<>("pool-b", 42);
      GlobalCkfManifest<String> manifest = GlobalCkfManifest.of(CONSUMER, FORMAT, Arrays.asList(lanes));
      indexer = GlobalCkfIndexer.create(manifest);
      ingestor = indexer.claimLane(LANE);
    } catch (GlobalCkfBuildException e) {
      throw new AssertionError(e);
    }
    assertThat(ingestor.assign(POOL, FORMAT, lease)).isEqualTo(LaneAssignmentResult.ASSIGNED);
  }

  @SuppressWarnings("unchecked")
  static CkfLaneOwner<String>[] newOwners(int n) {
    return (CkfLaneOwner<String>[]) new CkfLaneOwner<?>[n];
  }

  static long[] words(long fill) {
    long[] w = new long[B];
    Arrays.fill(w, fill);
    return w;
  }

  /** Words 0, 1, 2, … (bucket index as value) — distinguishable per bucket. */
  static long[] indexWords(long offset) {
    long[] w = new long[B];
    for (int i = 0; i < B; i++) {
      w[i] = offset + i;
    }
    return w;
  }

  LaneIngestOutcome snapshot(long sequence, long[] words) {
    return ingestor.installSnapshot(lease, POOL, sequence, words);
  }

  LaneIngestOutcome delta(long base, long sequence, int[] buckets, long[] words) {
    return ingestor.applyDelta(lease, POOL, base, sequence, buckets, words, buckets.length);
  }

  void install(long sequence, long[] words) {
    assertThat(snapshot(sequence, words)).isEqualTo(LaneIngestOutcome.SNAPSHOT_INSTALLED);
  }

  long[] laneWords(int lane) {
    long[] out = new long[B];
    for (int i = 0; i < B; i++) {
      out[i] = indexer.table().load(i, lane);
    }
    return out;
  }

  long[] laneWords() {
    return laneWords(LANE);
  }

  boolean readyBit() {
    return (indexer.readyLanes() & (1 << LANE)) != 0;
  }
}
