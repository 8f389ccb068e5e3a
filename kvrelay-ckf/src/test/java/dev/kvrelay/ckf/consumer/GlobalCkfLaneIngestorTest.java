package dev.kvrelay.ckf.consumer;

import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.AWAITING_SNAPSHOT;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.BASE_SEQUENCE_MISMATCH;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.DELTA_APPLIED;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.DRAIN_ACKNOWLEDGED;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.DUPLICATE_IMAGE_INDEX;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.EMPTY_DELTA;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.HEARTBEAT_ACKNOWLEDGED;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.IGNORED_FOREIGN_LEASE;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.IGNORED_STALE;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.INVALID_IMAGE_INDEX;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.INVALID_SNAPSHOT_BUCKET_COUNT;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.MALFORMED_DELTA;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.NON_CONTIGUOUS_SEQUENCE;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.SNAPSHOT_INSTALLED;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.SNAPSHOT_WHILE_READY;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.TERMINAL_SEQUENCE_MISMATCH;
import static dev.kvrelay.ckf.consumer.LaneIngestOutcome.WRONG_IDENTITY;
import static dev.kvrelay.ckf.consumer.LaneFixture.B;
import static dev.kvrelay.ckf.consumer.LaneFixture.CONSUMER;
import static dev.kvrelay.ckf.consumer.LaneFixture.FORMAT;
import static dev.kvrelay.ckf.consumer.LaneFixture.LANE;
import static dev.kvrelay.ckf.consumer.LaneFixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** ckf-cbi1.md §7 lane ingestion state machine: one test per transition / outcome. */
class GlobalCkfLaneIngestorTest {

  @Nested
  class Assignment {
    @Test
    void assignedLaneIsNotReadyUntilASnapshot() {
      LaneFixture f = new LaneFixture();
      assertThat(f.ingestor.lease()).isEqualTo(f.lease);
      assertThat(f.ingestor.isReady()).isFalse();
      assertThat(f.readyBit()).isFalse();
    }

    @Test
    void wrongConsumerInstanceIsRejected() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER + 1, LANE, 2)))
          .isEqualTo(LaneAssignmentResult.WRONG_CONSUMER_INSTANCE);
      assertUnchangedReadyLane(f);
    }

    @Test
    void wrongPhysicalLaneIsRejected() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, 5, 2)))
          .isEqualTo(LaneAssignmentResult.WRONG_PHYSICAL_LANE);
      assertUnchangedReadyLane(f);
    }

    @Test
    void anotherLanesPoolIsRejected() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.ingestor.assign("pool-b", FORMAT, new LaneLease(CONSUMER, LANE, 2)))
          .isEqualTo(LaneAssignmentResult.WRONG_LANE_OWNER);
      assertUnchangedReadyLane(f);
    }

    @Test
    void differentFormatIsRejected() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      LaneLease next = new LaneLease(CONSUMER, LANE, 2);
      assertThat(f.ingestor.assign(POOL, CkfFormat.of(0x5EEDL, 128), next)).isEqualTo(LaneAssignmentResult.WRONG_FORMAT);
      assertThat(f.ingestor.assign(POOL, CkfFormat.of(0x5EEEL, 64), next)).isEqualTo(LaneAssignmentResult.WRONG_FORMAT);
      assertUnchangedReadyLane(f);
    }

    @Test
    void staleAssignmentEpochIsRejected_equalOrLowerUnsigned() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, 1)))
          .isEqualTo(LaneAssignmentResult.STALE_ASSIGNMENT_EPOCH);
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, 0)))
          .isEqualTo(LaneAssignmentResult.STALE_ASSIGNMENT_EPOCH);
      assertUnchangedReadyLane(f);
      // Epochs compare unsigned: 2^64-1 is newer than 1, and 5 is then stale.
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, -1L)))
          .isEqualTo(LaneAssignmentResult.ASSIGNED);
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, 5)))
          .isEqualTo(LaneAssignmentResult.STALE_ASSIGNMENT_EPOCH);
    }

    @Test
    void epochStaysMonotonicAcrossRetire() {
      LaneFixture f = new LaneFixture();
      f.ingestor.retire();
      assertThat(f.ingestor.lease()).isNull();
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, 1)))
          .isEqualTo(LaneAssignmentResult.STALE_ASSIGNMENT_EPOCH);
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, 2)))
          .isEqualTo(LaneAssignmentResult.ASSIGNED);
    }

    @Test
    void newAssignmentClearsReadinessAndFencesTheOldLease() {
      LaneFixture f = new LaneFixture();
      f.install(9, LaneFixture.words(7));
      LaneLease old = f.lease;
      LaneLease next = new LaneLease(CONSUMER, LANE, 2);
      assertThat(f.ingestor.assign(POOL, FORMAT, next)).isEqualTo(LaneAssignmentResult.ASSIGNED);
      assertThat(f.readyBit()).isFalse();
      assertThat(f.ingestor.isReady()).isFalse();
      assertThat(f.ingestor.applyDelta(old, POOL, 9, 10, new int[] {0}, new long[] {1}, 1))
          .isEqualTo(IGNORED_FOREIGN_LEASE);
      assertThat(f.ingestor.installSnapshot(old, POOL, 10, otherWords())).isEqualTo(IGNORED_FOREIGN_LEASE);
      assertThat(f.laneWords()).containsOnly(7L);
      // The new lease starts a new sequence space: snapshot 0 is accepted.
      assertThat(f.ingestor.installSnapshot(next, POOL, 0, LaneFixture.words(8))).isEqualTo(SNAPSHOT_INSTALLED);
      assertThat(f.laneWords()).containsOnly(8L);
    }

    private long[] otherWords() {
      return LaneFixture.words(0x1111);
    }

    @Test
    void closedIngestorRefusesAssignmentAndReleasesItsClaim() throws Exception {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      f.ingestor.close();
      assertThat(f.readyBit()).isFalse();
      assertThat(f.ingestor.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, 2)))
          .isEqualTo(LaneAssignmentResult.INGESTOR_CLOSED);
      try (GlobalCkfLaneIngestor<String> again = f.indexer.claimLane(LANE)) {
        assertThat(again.assign(POOL, FORMAT, new LaneLease(CONSUMER, LANE, 1))).isEqualTo(LaneAssignmentResult.ASSIGNED);
      }
    }

    private void assertUnchangedReadyLane(LaneFixture f) {
      assertThat(f.ingestor.lease()).isEqualTo(f.lease);
      assertThat(f.ingestor.isReady()).isTrue();
      assertThat(f.readyBit()).isTrue();
      assertThat(f.laneWords()).containsOnly(7L);
    }
  }

  @Nested
  class Snapshot {
    @Test
    void installStoresEveryBucketSetsSequenceAndPublishesReady() {
      LaneFixture f = new LaneFixture();
      long[] words = LaneFixture.indexWords(100);
      assertThat(f.snapshot(5, words)).isEqualTo(SNAPSHOT_INSTALLED);
      assertThat(f.laneWords()).containsExactly(words);
      assertThat(f.laneWords(5)).containsOnly(0L);
      assertThat(f.ingestor.installedSequence()).isEqualTo(5);
      assertThat(f.ingestor.isReady()).isTrue();
      assertThat(f.indexer.readyLanes()).isEqualTo(1 << LANE);
    }

    @Test
    void unassignedLaneIgnoresSnapshots() {
      LaneFixture f = new LaneFixture();
      f.ingestor.retire();
      assertThat(f.snapshot(1, LaneFixture.words(3))).isEqualTo(IGNORED_FOREIGN_LEASE);
      assertThat(f.laneWords()).containsOnly(0L);
      assertThat(f.readyBit()).isFalse();
    }

    @Test
    void foreignLeaseIsIgnored() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      LaneLease foreign = new LaneLease(CONSUMER, LANE, 99);
      assertThat(f.ingestor.installSnapshot(foreign, POOL, 2, LaneFixture.words(3))).isEqualTo(IGNORED_FOREIGN_LEASE);
      assertThat(f.laneWords()).containsOnly(7L);
      assertThat(f.readyBit()).isTrue();
    }

    @Test
    void identityMismatchDeactivatesWithoutWrites() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.ingestor.installSnapshot(f.lease, "pool-a'", 2, LaneFixture.words(3))).isEqualTo(WRONG_IDENTITY);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void readyLaneIgnoresStaleOrDuplicateSnapshot() {
      LaneFixture f = new LaneFixture();
      f.install(7, LaneFixture.words(7));
      assertThat(f.snapshot(7, LaneFixture.words(3))).isEqualTo(IGNORED_STALE);
      assertThat(f.snapshot(6, LaneFixture.words(3))).isEqualTo(IGNORED_STALE);
      // Stale is checked before the length: a stale short snapshot cannot retire the lane.
      assertThat(f.snapshot(6, new long[3])).isEqualTo(IGNORED_STALE);
      assertThat(f.laneWords()).containsOnly(7L);
      assertThat(f.readyBit()).isTrue();
      assertThat(f.ingestor.installedSequence()).isEqualTo(7);
    }

    @Test
    void lengthOtherThanBDeactivates() {
      LaneFixture f = new LaneFixture();
      assertThat(f.snapshot(1, new long[B - 1])).isEqualTo(INVALID_SNAPSHOT_BUCKET_COUNT);
      assertThat(f.snapshot(1, new long[B + 1])).isEqualTo(INVALID_SNAPSHOT_BUCKET_COUNT);
      assertThat(f.laneWords()).containsOnly(0L);
      f.install(2, LaneFixture.words(7));
      // Ready and newer but the wrong length: the length check comes before SnapshotWhileReady.
      assertThat(f.snapshot(3, new long[0])).isEqualTo(INVALID_SNAPSHOT_BUCKET_COUNT);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void newerSnapshotWhileReadyDeactivatesWithoutWrites() {
      LaneFixture f = new LaneFixture();
      f.install(7, LaneFixture.words(7));
      assertThat(f.snapshot(8, LaneFixture.words(0xFFFF))).isEqualTo(SNAPSHOT_WHILE_READY);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void deactivatedLaneAcceptsASnapshotAgain() {
      LaneFixture f = new LaneFixture();
      f.install(7, LaneFixture.words(7));
      assertThat(f.snapshot(8, LaneFixture.words(0xFFFF))).isEqualTo(SNAPSHOT_WHILE_READY);
      // Not ready: any sequence installs (even one at or below the old installed sequence).
      assertThat(f.snapshot(3, LaneFixture.words(0xFFFF))).isEqualTo(SNAPSHOT_INSTALLED);
      assertThat(f.laneWords()).containsOnly(0xFFFFL);
      assertThat(f.ingestor.installedSequence()).isEqualTo(3);
      assertThat(f.readyBit()).isTrue();
    }

    @Test
    void sequencesCompareUnsigned() {
      LaneFixture f = new LaneFixture();
      long high = Long.MIN_VALUE; // 2^63
      f.install(high, LaneFixture.words(7));
      assertThat(f.snapshot(5, LaneFixture.words(3))).as("5 < 2^63 unsigned").isEqualTo(IGNORED_STALE);
      assertThat(f.delta(high, high + 1, new int[] {0}, new long[] {9})).isEqualTo(DELTA_APPLIED);
      assertThat(f.ingestor.installedSequence()).isEqualTo(high + 1);
    }
  }

  @Nested
  class Delta {
    @Test
    void contiguousDeltaStoresImagesInAnyOrderAndAdvances() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(0));
      assertThat(f.delta(4, 5, new int[] {63, 3, 17}, new long[] {0xAAAA_BBBB_CCCC_DDDDL, 42, 5}))
          .isEqualTo(DELTA_APPLIED);
      long[] expected = new long[B];
      expected[63] = 0xAAAA_BBBB_CCCC_DDDDL;
      expected[3] = 42;
      expected[17] = 5;
      assertThat(f.laneWords()).containsExactly(expected);
      assertThat(f.ingestor.installedSequence()).isEqualTo(5);
      assertThat(f.readyBit()).isTrue();
      // Only the first `count` images are applied.
      assertThat(f.ingestor.applyDelta(f.lease, POOL, 5, 6, new int[] {1, 2}, new long[] {11, 22}, 1))
          .isEqualTo(DELTA_APPLIED);
      assertThat(f.indexer.table().load(1, LANE)).isEqualTo(11);
      assertThat(f.indexer.table().load(2, LANE)).isZero();
    }

    @Test
    void unassignedOrForeignLeaseIsIgnored() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      LaneLease foreign = new LaneLease(CONSUMER + 1, LANE, 1);
      assertThat(f.ingestor.applyDelta(foreign, POOL, 4, 5, new int[] {0}, new long[] {1}, 1))
          .isEqualTo(IGNORED_FOREIGN_LEASE);
      assertThat(f.readyBit()).isTrue();
      f.ingestor.retire();
      assertThat(f.delta(4, 5, new int[] {0}, new long[] {1})).isEqualTo(IGNORED_FOREIGN_LEASE);
      assertThat(f.laneWords()).containsOnly(7L);
    }

    @Test
    void wrongIdentityDeactivates() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.ingestor.applyDelta(f.lease, "pool-b", 1, 2, new int[] {0}, new long[] {1}, 1))
          .isEqualTo(WRONG_IDENTITY);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void notReadyAwaitsSnapshot() {
      LaneFixture f = new LaneFixture();
      assertThat(f.delta(0, 1, new int[] {0}, new long[] {1})).isEqualTo(AWAITING_SNAPSHOT);
      assertThat(f.laneWords()).containsOnly(0L);
      assertThat(f.readyBit()).isFalse();
    }

    @Test
    void staleOrDuplicateSequenceIsIgnored() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.delta(3, 4, new int[] {0}, new long[] {77})).isEqualTo(IGNORED_STALE);
      assertThat(f.delta(1, 2, new int[] {0}, new long[] {88})).isEqualTo(IGNORED_STALE);
      // Stale is decided before the image checks.
      assertThat(f.delta(3, 4, new int[0], new long[0])).isEqualTo(IGNORED_STALE);
      assertThat(f.laneWords()).containsOnly(7L);
      assertThat(f.readyBit()).isTrue();
    }

    @Test
    void baseOtherThanInstalledDeactivates() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.delta(5, 6, new int[] {0}, new long[] {1})).isEqualTo(BASE_SEQUENCE_MISMATCH);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void sequenceOtherThanBasePlusOneDeactivates() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.delta(4, 7, new int[] {0}, new long[] {1})).isEqualTo(NON_CONTIGUOUS_SEQUENCE);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void inconsistentArraysDeactivateWithTypedOutcome() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.ingestor.applyDelta(f.lease, POOL, 4, 5, new int[] {0}, new long[] {1}, 2))
          .isEqualTo(MALFORMED_DELTA);
      assertDeactivatedWith(f, 7L);
      f.install(5, LaneFixture.words(7));
      assertThat(f.ingestor.applyDelta(f.lease, POOL, 5, 6, new int[] {0, 1}, new long[] {1}, 2))
          .isEqualTo(MALFORMED_DELTA);
      f.install(6, LaneFixture.words(7));
      assertThat(f.ingestor.applyDelta(f.lease, POOL, 6, 7, new int[] {0}, new long[] {1}, -1))
          .isEqualTo(MALFORMED_DELTA);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void emptyDeltaDeactivates() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.delta(1, 2, new int[0], new long[0])).isEqualTo(EMPTY_DELTA);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void bucketOutsideRangeDeactivatesBeforeAnyWrite() {
      LaneFixture f = new LaneFixture();
      f.install(2, LaneFixture.words(7));
      assertThat(f.delta(2, 3, new int[] {1, B}, new long[] {33, 44})).isEqualTo(INVALID_IMAGE_INDEX);
      assertDeactivatedWith(f, 7L);
      f.install(3, LaneFixture.words(7));
      assertThat(f.delta(3, 4, new int[] {1, -1}, new long[] {33, 44})).as("u32 above 2^31").isEqualTo(INVALID_IMAGE_INDEX);
      assertDeactivatedWith(f, 7L);
    }

    @Test
    void duplicateBucketDeactivatesBeforeAnyWrite_andTheBitmapIsReset() {
      LaneFixture f = new LaneFixture();
      f.install(1, LaneFixture.words(7));
      assertThat(f.delta(1, 2, new int[] {0, 5, 0}, new long[] {11, 12, 22})).isEqualTo(DUPLICATE_IMAGE_INDEX);
      assertDeactivatedWith(f, 7L);
      f.install(2, LaneFixture.words(7));
      // The same buckets are accepted once each afterwards (no stale marks left behind).
      assertThat(f.delta(2, 3, new int[] {0, 5}, new long[] {11, 12})).isEqualTo(DELTA_APPLIED);
      assertThat(f.indexer.table().load(0, LANE)).isEqualTo(11);
      assertThat(f.indexer.table().load(5, LANE)).isEqualTo(12);
      // And after an InvalidImageIndex that stopped half-way.
      assertThat(f.delta(3, 4, new int[] {9, B + 1}, new long[] {1, 2})).isEqualTo(INVALID_IMAGE_INDEX);
      f.install(4, LaneFixture.words(7));
      assertThat(f.delta(4, 5, new int[] {9}, new long[] {99})).isEqualTo(DELTA_APPLIED);
    }

    @Test
    void deactivatedLaneAwaitsSnapshotForFurtherDeltas() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.delta(5, 6, new int[] {0}, new long[] {1})).isEqualTo(BASE_SEQUENCE_MISMATCH);
      assertThat(f.delta(4, 5, new int[] {0}, new long[] {1})).isEqualTo(AWAITING_SNAPSHOT);
      assertThat(f.laneWords()).containsOnly(7L);
    }
  }

  @Nested
  class DrainAndHeartbeat {
    @Test
    void drainAtInstalledSequenceIsAcknowledged() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.delta(4, 5, new int[] {0}, new long[] {1})).isEqualTo(DELTA_APPLIED);
      assertThat(f.ingestor.completeDrain(f.lease, 5)).isEqualTo(DRAIN_ACKNOWLEDGED);
      assertThat(f.readyBit()).isTrue();
    }

    @Test
    void drainAtOtherSequenceDeactivates_lostFinalDelta() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.ingestor.completeDrain(f.lease, 5)).isEqualTo(TERMINAL_SEQUENCE_MISMATCH);
      assertDeactivatedWith(f, 7L);
      // Not ready: even the old installed sequence does not match.
      assertThat(f.ingestor.completeDrain(f.lease, 4)).isEqualTo(TERMINAL_SEQUENCE_MISMATCH);
    }

    @Test
    void drainWithForeignLeaseIsIgnored() {
      LaneFixture f = new LaneFixture();
      f.install(4, LaneFixture.words(7));
      assertThat(f.ingestor.completeDrain(new LaneLease(CONSUMER, LANE, 7), 99)).isEqualTo(IGNORED_FOREIGN_LEASE);
      assertThat(f.readyBit()).isTrue();
    }

    @Test
    void heartbeatChecksInstalledEqualsSequence() {
      LaneFixture f = new LaneFixture();
      assertThat(f.ingestor.checkHeartbeat(f.lease, 0)).as("before the snapshot").isEqualTo(TERMINAL_SEQUENCE_MISMATCH);
      f.install(4, LaneFixture.words(7));
      assertThat(f.ingestor.checkHeartbeat(f.lease, 4)).isEqualTo(HEARTBEAT_ACKNOWLEDGED);
      assertThat(f.ingestor.installedSequence()).as("no advance").isEqualTo(4);
      assertThat(f.ingestor.checkHeartbeat(f.lease, 3)).isEqualTo(TERMINAL_SEQUENCE_MISMATCH);
      assertDeactivatedWith(f, 7L);
    }
  }

  @Test
  void outcomeFlagsMatchTheSpecList() {
    assertThat(LaneIngestOutcome.values()).filteredOn(LaneIngestOutcome::deactivatesLane).containsExactlyInAnyOrder(
        WRONG_IDENTITY, INVALID_SNAPSHOT_BUCKET_COUNT, SNAPSHOT_WHILE_READY, BASE_SEQUENCE_MISMATCH,
        NON_CONTIGUOUS_SEQUENCE, MALFORMED_DELTA, EMPTY_DELTA, INVALID_IMAGE_INDEX, DUPLICATE_IMAGE_INDEX,
        TERMINAL_SEQUENCE_MISMATCH);
    assertThat(LaneIngestOutcome.values()).filteredOn(LaneIngestOutcome::wroteWords)
        .containsExactlyInAnyOrder(SNAPSHOT_INSTALLED, DELTA_APPLIED);
  }

  private static void assertDeactivatedWith(LaneFixture f, long word) {
    assertThat(f.ingestor.isReady()).isFalse();
    assertThat(f.readyBit()).isFalse();
    assertThat(f.laneWords()).containsOnly(word);
  }
}
