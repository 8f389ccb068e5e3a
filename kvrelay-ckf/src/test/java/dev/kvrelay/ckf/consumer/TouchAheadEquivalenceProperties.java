package dev.kvrelay.ckf.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The table-backed query touches galloping, bisection and verification positions ahead of their probes and
 * memoises what it touched; these properties check that it answers exactly like searches that touch
 * nothing: the literal spec reference over a per-slot scan of the lane words, and the optimised search
 * through an external probe of the same table (where touching is a no-op).
 */
class TouchAheadEquivalenceProperties {
  private static final long CONSUMER = 23;

  @Test
  void touchAheadNeverChangesAnAnswer() {
    // Random tables (64..8192 buckets, random background load, capacity holes when small), 16 lanes with
    // full, staggered, holed and island prefixes of several requests; one result object serves all the
    // requests, interleaved and repeated, so a stale touched-ahead position of an earlier request would show.
    qt().withExamples(250)
        .forAll(integers().between(0, 7), integers().between(1, 8), longs().all())
        .checkAssert((sizeLog, window, seed) -> {
          SplittableRandom random = new SplittableRandom(seed);
          CkfFormat format = CkfFormat.of(random.nextLong(), 64L << sizeLog);
          long[][] requests = new long[1 + random.nextInt(4)][];
          for (int q = 0; q < requests.length; q++) {
            int n = random.nextInt(3) == 0 ? 128 : random.nextInt(301);
            requests[q] = random.longs(n).toArray();
          }
          int ready = random.nextInt(4) == 0 ? random.nextInt(0x10000) | (1 << random.nextInt(16)) : 0xFFFF;
          Table table = load(format, requests, ready, window, random);
          GlobalCkfQueryResult<Integer> result = table.indexer.newQueryResult();
          PrefixSearchScratch plain = new PrefixSearchScratch();
          TransposedCkfTable words = table.indexer.table();
          CkfAddressing addressing = table.indexer.addressing();
          for (int round = 0; round < 2 * requests.length; round++) {
            long[] request = requests[random.nextInt(requests.length)];
            assertThat(table.indexer.query(request, result)).isEqualTo(GlobalCkfQueryStatus.ANSWERED);
            int n = request.length;
            int[] reference = ReferencePrefixSearch.find(n, ready, window,
                (position, lanes) -> naivePresence(table, addressing, request[position])).depths();
            PrefixDepthSearch.find(n, ready, window,
                (position, lanes) -> words.probe(addressing.prepare(request[position]), lanes), plain);
            for (int lane = 0; lane < 16; lane++) {
              assertThat(result.prefixDepth(lane)).as("n=%d W=%d lane %d vs reference", n, window, lane)
                  .isEqualTo(reference[lane]);
              assertThat(result.prefixDepth(lane)).as("n=%d W=%d lane %d vs untouched search", n, window, lane)
                  .isEqualTo(plain.depth(lane));
            }
          }
        });
  }

  private record Table(GlobalCkfIndexer<Integer> indexer, long[][] words) {}

  /**
   * Lane L holds, for every request, the positions of one random row pattern (first free slot of bucket A,
   * else B, else dropped: a capacity hole), then random background fingerprints up to a random load.
   */
  private static Table load(CkfFormat format, long[][] requests, int ready, int window, SplittableRandom random) {
    try {
      List<CkfLaneOwner<Integer>> owners = new ArrayList<>();
      for (int lane = 0; lane < 16; lane++) {
        owners.add(new CkfLaneOwner<>(lane, 2000L + lane));
      }
      GlobalCkfIndexer<Integer> indexer =
          GlobalCkfIndexer.create(GlobalCkfManifest.of(CONSUMER, format, owners), window);
      CkfAddressing addressing = indexer.addressing();
      int buckets = (int) format.bucketCount();
      long[][] words = new long[16][buckets];
      for (long[] request : requests) {
        boolean[][] rows = PrefixDepthSearchProperties.randomRows(random, request.length);
        for (int lane = 0; lane < 16; lane++) {
          for (int pos = 0; pos < request.length; pos++) {
            if (rows[lane][pos]) {
              long packed = addressing.prepare(request[pos]);
              int fp = CkfAddressing.fingerprint(packed);
              if (!place(words[lane], CkfAddressing.bucketA(packed), fp)) {
                place(words[lane], CkfAddressing.bucketB(packed), fp);
              }
            }
          }
        }
      }
      double background = random.nextDouble() * 0.5;
      for (int lane = 0; lane < 16; lane++) {
        for (int b = 0; b < buckets; b++) {
          for (int slot = 0; slot < 4; slot++) {
            if (random.nextDouble() < background) {
              place(words[lane], b, 1 + random.nextInt(0xFFFF));
            }
          }
        }
        if ((ready & (1 << lane)) != 0) {
          GlobalCkfLaneIngestor<Integer> ingestor = indexer.claimLane(lane);
          LaneLease lease = new LaneLease(CONSUMER, lane, 1);
          assertThat(ingestor.assign(lane, format, lease)).isEqualTo(LaneAssignmentResult.ASSIGNED);
          assertThat(ingestor.installSnapshot(lease, lane, 1, words[lane]))
              .isEqualTo(LaneIngestOutcome.SNAPSHOT_INSTALLED);
        }
      }
      return new Table(indexer, words);
    } catch (GlobalCkfBuildException e) {
      throw new AssertionError(e);
    }
  }

  /** Ready lanes whose fixture words hold the hash's fingerprint in bucket A or B, by a per-slot scan. */
  private static int naivePresence(Table table, CkfAddressing addressing, long hash) {
    long packed = addressing.prepare(hash);
    int fp = CkfAddressing.fingerprint(packed);
    int mask = 0;
    for (int lane = 0; lane < 16; lane++) {
      long a = table.words[lane][CkfAddressing.bucketA(packed)];
      long b = table.words[lane][CkfAddressing.bucketB(packed)];
      for (int slot = 0; slot < 4; slot++) {
        if (((a >>> (16 * slot)) & 0xFFFF) == fp || ((b >>> (16 * slot)) & 0xFFFF) == fp) {
          mask |= 1 << lane;
        }
      }
    }
    return mask;
  }

  private static boolean place(long[] lane, int bucket, int fp) {
    for (int slot = 0; slot < 4; slot++) {
      if (((lane[bucket] >>> (16 * slot)) & 0xFFFF) == 0) {
        lane[bucket] |= (long) fp << (16 * slot);
        return true;
      }
    }
    return false;
  }
}
