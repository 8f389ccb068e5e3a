package dev.kvrelay.ckf.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random frame streams against a simple model of one lane: every rejected snapshot or delta leaves all
 * words of all lanes unchanged, every accepted one stores exactly its images, and the ready bit follows.
 */
class GlobalCkfLaneIngestorProperties {

  private enum Kind {
    SNAPSHOT, DELTA, STALE_DELTA, GAP, NON_CONTIGUOUS, EMPTY, OUT_OF_RANGE, DUPLICATE, FOREIGN_LEASE,
    WRONG_IDENTITY, SHORT_SNAPSHOT, STALE_SNAPSHOT, MALFORMED
  }

  @Test
  void rejectedFramesChangeNoWordAndAcceptedFramesMatchTheModel() {
    qt().withExamples(300).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom random = new SplittableRandom(seed);
      LaneFixture f = new LaneFixture();
      // The neighbouring lane 5 holds its own snapshot, which must never change.
      GlobalCkfLaneIngestor<String> neighbour = claimNeighbour(f);
      long[] neighbourWords = f.laneWords(5);

      boolean ready = false;
      long installed = 0;
      for (int step = 0; step < 60; step++) {
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        if (kind == Kind.STALE_SNAPSHOT && !ready) {
          kind = Kind.SHORT_SNAPSHOT; // on a lane that is not ready, any full snapshot installs
        }
        long[] before = f.laneWords();
        LaneIngestOutcome outcome;
        long[] expectedAfter = before;
        switch (kind) {
          case SNAPSHOT -> {
            long seq = ready ? installed + 1 + random.nextInt(3) : random.nextInt(100);
            long[] words = random.longs(LaneFixture.B).toArray();
            outcome = f.snapshot(seq, words);
            if (ready) {
              assertThat(outcome).isEqualTo(LaneIngestOutcome.SNAPSHOT_WHILE_READY);
            } else {
              assertThat(outcome).isEqualTo(LaneIngestOutcome.SNAPSHOT_INSTALLED);
              expectedAfter = words;
              installed = seq;
            }
          }
          case DELTA -> {
            int count = 1 + random.nextInt(8);
            int[] buckets = distinctBuckets(random, count);
            long[] words = random.longs(count).toArray();
            outcome = f.delta(installed, installed + 1, buckets, words);
            if (ready) {
              assertThat(outcome).isEqualTo(LaneIngestOutcome.DELTA_APPLIED);
              expectedAfter = before.clone();
              for (int i = 0; i < count; i++) {
                expectedAfter[buckets[i]] = words[i];
              }
              installed++;
            } else {
              assertThat(outcome).isEqualTo(LaneIngestOutcome.AWAITING_SNAPSHOT);
            }
          }
          default -> {
            outcome = rejected(kind, f, random, ready, installed);
          }
        }
        if (outcome.deactivatesLane()) {
          ready = false;
        } else if (outcome == LaneIngestOutcome.SNAPSHOT_INSTALLED) {
          ready = true;
        }
        if (!outcome.wroteWords()) {
          assertThat(f.laneWords()).as("%s → %s must not write", kind, outcome).containsExactly(before);
        } else {
          assertThat(f.laneWords()).as("%s → %s", kind, outcome).containsExactly(expectedAfter);
        }
        assertThat(f.readyBit()).isEqualTo(ready);
        assertThat(f.ingestor.isReady()).isEqualTo(ready);
        if (ready) {
          assertThat(f.ingestor.installedSequence()).isEqualTo(installed);
        }
        assertThat(f.laneWords(5)).containsExactly(neighbourWords);
        assertThat((f.indexer.readyLanes() & (1 << 5)) != 0).isTrue();
      }
      neighbour.close();
    });
  }

  /** Builds a frame that the spec rejects (or ignores) in the current state; returns the lane's answer. */
  private static LaneIngestOutcome rejected(
      Kind kind, LaneFixture f, SplittableRandom random, boolean ready, long installed) {
    int[] one = {random.nextInt(LaneFixture.B)};
    long[] oneWord = {random.nextLong()};
    LaneIngestOutcome outcome;
    switch (kind) {
      case STALE_DELTA -> {
        outcome = f.delta(installed - 1, installed, one, oneWord);
        assertThat(outcome).isEqualTo(ready ? LaneIngestOutcome.IGNORED_STALE : LaneIngestOutcome.AWAITING_SNAPSHOT);
      }
      case GAP -> {
        outcome = f.delta(installed + 1, installed + 2, one, oneWord);
        assertThat(outcome).isEqualTo(ready ? LaneIngestOutcome.BASE_SEQUENCE_MISMATCH : LaneIngestOutcome.AWAITING_SNAPSHOT);
      }
      case NON_CONTIGUOUS -> {
        outcome = f.delta(installed, installed + 2 + random.nextInt(5), one, oneWord);
        assertThat(outcome).isEqualTo(ready ? LaneIngestOutcome.NON_CONTIGUOUS_SEQUENCE : LaneIngestOutcome.AWAITING_SNAPSHOT);
      }
      case EMPTY -> {
        outcome = f.delta(installed, installed + 1, new int[0], new long[0]);
        assertThat(outcome).isEqualTo(ready ? LaneIngestOutcome.EMPTY_DELTA : LaneIngestOutcome.AWAITING_SNAPSHOT);
      }
      case OUT_OF_RANGE -> {
        int[] buckets = distinctBuckets(random, 3);
        buckets[random.nextInt(3)] = random.nextBoolean() ? LaneFixture.B + random.nextInt(1000) : -1 - random.nextInt(1000);
        outcome = f.delta(installed, installed + 1, buckets, random.longs(3).toArray());
        assertThat(outcome).isEqualTo(ready ? LaneIngestOutcome.INVALID_IMAGE_INDEX : LaneIngestOutcome.AWAITING_SNAPSHOT);
      }
      case DUPLICATE -> {
        int[] buckets = distinctBuckets(random, 4);
        buckets[3] = buckets[random.nextInt(3)];
        outcome = f.delta(installed, installed + 1, buckets, random.longs(4).toArray());
        assertThat(outcome).isEqualTo(ready ? LaneIngestOutcome.DUPLICATE_IMAGE_INDEX : LaneIngestOutcome.AWAITING_SNAPSHOT);
      }
      case MALFORMED -> {
        outcome = f.ingestor.applyDelta(f.lease, LaneFixture.POOL, installed, installed + 1, one, oneWord, 2);
        assertThat(outcome).isEqualTo(ready ? LaneIngestOutcome.MALFORMED_DELTA : LaneIngestOutcome.AWAITING_SNAPSHOT);
      }
      case FOREIGN_LEASE -> {
        LaneLease foreign = new LaneLease(LaneFixture.CONSUMER, LaneFixture.LANE, 2 + random.nextInt(10));
        outcome = random.nextBoolean()
            ? f.ingestor.applyDelta(foreign, LaneFixture.POOL, installed, installed + 1, one, oneWord, 1)
            : f.ingestor.installSnapshot(foreign, LaneFixture.POOL, installed + 1, LaneFixture.words(1));
        assertThat(outcome).isEqualTo(LaneIngestOutcome.IGNORED_FOREIGN_LEASE);
      }
      case WRONG_IDENTITY -> {
        outcome = random.nextBoolean()
            ? f.ingestor.applyDelta(f.lease, "pool-b", installed, installed + 1, one, oneWord, 1)
            : f.ingestor.installSnapshot(f.lease, "pool-b", installed + 1, LaneFixture.words(1));
        assertThat(outcome).isEqualTo(LaneIngestOutcome.WRONG_IDENTITY);
      }
      case SHORT_SNAPSHOT -> {
        outcome = f.snapshot(installed + 1, new long[random.nextInt(LaneFixture.B)]);
        assertThat(outcome).isEqualTo(LaneIngestOutcome.INVALID_SNAPSHOT_BUCKET_COUNT);
      }
      case STALE_SNAPSHOT -> {
        outcome = f.snapshot(installed == 0 ? 0 : installed - random.nextInt(2), LaneFixture.words(random.nextLong()));
        assertThat(outcome).isEqualTo(LaneIngestOutcome.IGNORED_STALE);
      }
      default -> throw new AssertionError(kind);
    }
    return outcome;
  }

  private static GlobalCkfLaneIngestor<String> claimNeighbour(LaneFixture f) {
    try {
      GlobalCkfLaneIngestor<String> n = f.indexer.claimLane(5);
      LaneLease lease = new LaneLease(LaneFixture.CONSUMER, 5, 1);
      assertThat(n.assign("pool-b", LaneFixture.FORMAT, lease)).isEqualTo(LaneAssignmentResult.ASSIGNED);
      long[] words = LaneFixture.indexWords(1_000);
      assertThat(n.installSnapshot(lease, "pool-b", 3, words)).isEqualTo(LaneIngestOutcome.SNAPSHOT_INSTALLED);
      return n;
    } catch (GlobalCkfBuildException e) {
      throw new AssertionError(e);
    }
  }

  private static int[] distinctBuckets(SplittableRandom random, int count) {
    int[] all = random.ints(0, LaneFixture.B).distinct().limit(count).toArray();
    Arrays.sort(all);
    // Shuffle: images need not be ordered.
    for (int i = all.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    return all;
  }
}
