package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.hashing.SequenceHash;
import static dev.kvrelay.ckf.producer.Fixtures.producer;
import static dev.kvrelay.ckf.producer.Fixtures.stored;
import static dev.kvrelay.ckf.producer.Fixtures.storedAfter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.PackedBucket;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** ckf-cbi1.md §5: dirty window, drain, cadence, sequencing, barrier snapshots; §3.4 replace_ranks. */
class CkfProducerPublicationTest {
  private static final long W = 11;

  private static CkfDelta delta(CkfPublication p) {
    assertThat(p).isInstanceOf(CkfDelta.class);
    return (CkfDelta) p;
  }

  private static long[] apply(long[] words, CkfDelta d) {
    long[] out = words.clone();
    for (int i = 0; i < d.imageCount(); i++) {
      out[d.bucket(i)] = d.word(i);
    }
    return out;
  }

  @Test
  void nothingPendingDrainsToNothing() {
    CkfProducer p = producer(64);
    assertThat(p.drain()).isEqualTo(NoPublication.NOTHING_PENDING);
    assertThat(p.stats().unchangedPublications()).isZero();
  }

  /**
   * Decision box "drains that change no bucket" (ckf-cbi1.md §5): the batch is None, pending events are
   * reset, unchanged_publications += 1, no delta, the sequence does not advance.
   */
  @Test
  void decisionDrainThatChangesNoBucketIsUnchangedPublicationWithoutSequenceAdvance() throws Exception {
    CkfProducer p = producer(64);
    p.snapshotAfterBarrier(1);
    p.stored(stored(W, 0, 1, 500));
    p.removed(W, 0, new long[] {1});
    assertThat(p.dirtyWindow().touchedCount()).isEqualTo(1);
    assertThat(p.drain()).isEqualTo(NoPublication.UNCHANGED);
    assertThat(p.lastSequence()).isZero();
    assertThat(p.pendingEvents()).isZero();
    assertThat(p.stats().unchangedPublications()).isEqualTo(1);
    assertThat(p.stats().netRevertedBuckets()).isEqualTo(1);
    // Events that failed and touched nothing are still a boundary.
    p.stored(storedAfter(W, 0, 999, 2, 3));
    assertThat(p.drain()).isEqualTo(NoPublication.UNCHANGED);
    assertThat(p.stats().unchangedPublications()).isEqualTo(2);
    assertThat(p.lastSequence()).isZero();
    assertThat(p.drain()).isEqualTo(NoPublication.NOTHING_PENDING);
  }

  @Test
  void withoutLeaseBatchesAreDroppedAndSequenceStaysZero() {
    CkfProducer p = producer(64);
    p.stored(stored(W, 0, 1, 500));
    assertThat(p.drain()).isEqualTo(NoPublication.NO_SUBSCRIBER);
    assertThat(p.lastSequence()).isZero();
    assertThat(p.stats().droppedWithoutSubscriber()).isEqualTo(1);
    assertThat(p.drain()).isEqualTo(NoPublication.NOTHING_PENDING);
  }

  @Test
  void deltaCarriesChangedBucketsInFirstTouchOrderFromBaseToNext() throws Exception {
    CkfProducer p = producer(1024);
    BarrierSnapshot first = p.snapshotAfterBarrier(7);
    assertThat(first.tail()).isNull();
    assertThat(first.snapshot().sequence()).isZero();
    assertThat(first.snapshot().lease()).isEqualTo(7);
    assertThat(first.snapshot().words()).hasSize(1024).containsOnly(0L);

    CkfAddressing addr = CkfAddressing.of(CkfFormat.withDefaultSeed(1024));
    long[] tokens = {5, 6, 7, 8, 9};
    Set<Integer> expectedOrder = new LinkedHashSet<>();
    for (int i = 0; i < tokens.length; i++) {
      p.stored(stored(W, 0, 100 + i, tokens[i]));
      expectedOrder.add(CkfAddressing.bucketA(addr.prepare(tokens[i]))); // empty table: lowest slot of A
    }
    CkfDelta d = delta(p.drain());
    assertThat(d.lease()).isEqualTo(7);
    assertThat(d.baseSequence()).isZero();
    assertThat(d.sequence()).isEqualTo(1);
    List<Integer> buckets = new ArrayList<>();
    for (int b : d.buckets()) {
      buckets.add(b);
    }
    assertThat(buckets).containsExactlyElementsOf(expectedOrder);
    for (int i = 0; i < tokens.length; i++) {
      long prep = addr.prepare(tokens[i]);
      int idx = buckets.indexOf(CkfAddressing.bucketA(prep));
      assertThat(PackedBucket.contains(d.word(idx), CkfAddressing.fingerprint(prep))).isTrue();
    }
    assertThat(apply(first.snapshot().words(), d)).isEqualTo(p.copyWords());
    assertThat(p.lastSequence()).isEqualTo(1);
    assertThat(p.stats().publishedDeltas()).isEqualTo(1);
  }

  @Test
  void originalAtFirstTouchIsKeptAndNetReversionsAreDropped() throws Exception {
    CkfProducer p = producer(1024);
    p.snapshotAfterBarrier(1);
    p.stored(stored(W, 0, 1, 5));
    p.stored(stored(W, 0, 2, 6));
    long[] published = p.copyWords();
    assertThat(delta(p.drain()).sequence()).isEqualTo(1);
    p.removed(W, 0, new long[] {1}); // bucket of 5 changes
    p.stored(stored(W, 0, 3, 7));    // another bucket changes
    p.stored(stored(W, 0, 1, 5));    // bucket of 5 back to its original word
    CkfDelta d = delta(p.drain());
    assertThat(d.baseSequence()).isEqualTo(1);
    assertThat(d.imageCount()).isEqualTo(1);
    assertThat(apply(published, d)).isEqualTo(p.copyWords());
    assertThat(p.stats().netRevertedBuckets()).isEqualTo(1);
  }

  @Test
  void cadenceCountsEveryAppliedEventSuccessOrFailure() {
    CkfProducer p = producer(1024, 16);
    for (int i = 0; i < 15; i++) {
      if (i % 3 == 0) {
        p.stored(storedAfter(W, 0, 12345, i, i)); // unknown parent: fails, still counts
      } else {
        p.stored(stored(W, 0, i, i));
      }
      assertThat(p.shouldDrain()).isFalse();
    }
    p.removed(W, 0, new long[] {424242});
    assertThat(p.pendingEvents()).isEqualTo(16);
    assertThat(p.shouldDrain()).isTrue();
    p.drain();
    assertThat(p.shouldDrain()).isFalse();
    assertThat(p.config().publishEveryNEvents()).isEqualTo(16);
    assertThat(producer(64).config().publishEveryNEvents()).isEqualTo(1);
  }

  @Test
  void sequenceExhaustionFencesAndRefusesBarrier() throws Exception {
    CkfProducer p = producer(1024);
    p.snapshotAfterBarrier(1);
    p.forceLastSequenceForTest(-2L); // u64::MAX - 1
    p.stored(stored(W, 0, 1, 5));
    CkfDelta last = delta(p.drain());
    assertThat(last.sequence()).isEqualTo(-1L);
    assertThat(Long.toUnsignedString(last.sequence())).isEqualTo("18446744073709551615");
    p.stored(stored(W, 0, 2, 6));
    assertThat(p.drain()).isEqualTo(NoPublication.FENCED);
    assertThat(p.fenceReason()).isEqualTo(FenceReason.SEQUENCE_EXHAUSTED);
    assertThat(p.lastSequence()).isEqualTo(-1L);
    assertThatThrownBy(() -> p.snapshotAfterBarrier(2))
        .isInstanceOfSatisfying(CkfPublicationException.class,
            e -> assertThat(e.reason()).isEqualTo(FenceReason.SEQUENCE_EXHAUSTED));
    assertThat(p.hasLease()).isTrue();
  }

  @Test
  void barrierPublishesTheTailOnTheOldLeaseThenSnapshotsAtN() throws Exception {
    CkfProducer p = producer(1024);
    p.snapshotAfterBarrier(1);
    p.stored(stored(W, 0, 1, 5));
    BarrierSnapshot b = p.snapshotAfterBarrier(2);
    assertThat(b.tail()).isNotNull();
    assertThat(b.tail().lease()).isEqualTo(1);
    assertThat(b.tail().baseSequence()).isZero();
    assertThat(b.tail().sequence()).isEqualTo(1);
    assertThat(b.snapshot().lease()).isEqualTo(2);
    assertThat(b.snapshot().sequence()).isEqualTo(1);
    assertThat(b.snapshot().words()).isEqualTo(p.copyWords());
    p.stored(stored(W, 0, 2, 6));
    CkfDelta next = delta(p.drain());
    assertThat(next.lease()).isEqualTo(2);
    assertThat(next.baseSequence()).isEqualTo(1);
    assertThat(next.sequence()).isEqualTo(2);
  }

  @Test
  void failedDeliveryFencesDiscardsTheTailAndBarrierRecovers() throws Exception {
    CkfProducer p = producer(1024);
    p.snapshotAfterBarrier(1);
    p.stored(stored(W, 0, 1, 5));
    CkfDelta lost = delta(p.drain());
    p.deliveryFailed(lost);
    assertThat(p.lastSequence()).isZero();
    assertThat(p.fenceReason()).isEqualTo(FenceReason.DELIVERY_UNCERTAIN);
    p.stored(stored(W, 0, 2, 6));
    assertThat(p.drain()).isEqualTo(NoPublication.FENCED);
    p.stored(stored(W, 0, 3, 7));
    BarrierSnapshot b = p.snapshotAfterBarrier(2);
    assertThat(b.tail()).as("fenced: the tail is not published").isNull();
    assertThat(b.snapshot().sequence()).isZero();
    assertThat(b.snapshot().words()).isEqualTo(p.copyWords());
    assertThat(p.fenceReason()).isNull();
    p.stored(stored(W, 0, 4, 8));
    CkfDelta d = delta(p.drain());
    assertThat(d.baseSequence()).isZero();
    assertThat(d.sequence()).isEqualTo(1);
  }

  /**
   * ckf-cbi1.md §5 publisher: an old-lease tail that cannot be enqueued fences with DeliveryUncertain
   * and does not advance the sequence; the barrier is then retaken and its snapshot, at the
   * un-advanced sequence, covers the tail (upstream test
   * {@code failed_old_lease_tail_requires_retry_then_snapshot_covers_it}). Here the caller reports the
   * failed tail with {@code deliveryFailed} and discards that barrier's snapshot.
   */
  @Test
  void failedOldLeaseTailIsReportedThenTheRetakenBarrierCoversIt() throws Exception {
    CkfProducer p = producer(1024, 16);
    p.snapshotAfterBarrier(1);
    p.forceLastSequenceForTest(4);
    p.stored(stored(W, 0, 1, 5));
    BarrierSnapshot failed = p.snapshotAfterBarrier(2);
    assertThat(failed.tail()).isNotNull();
    assertThat(failed.tail().sequence()).isEqualTo(5);
    p.deliveryFailed(failed.tail());
    assertThat(p.lastSequence()).isEqualTo(4);
    assertThat(p.fenceReason()).isEqualTo(FenceReason.DELIVERY_UNCERTAIN);

    BarrierSnapshot retry = p.snapshotAfterBarrier(2);
    assertThat(retry.tail()).isNull();
    assertThat(retry.snapshot().sequence()).isEqualTo(4);
    assertThat(retry.snapshot().lease()).isEqualTo(2);
    assertThat(retry.snapshot().words()).isEqualTo(p.copyWords()).isNotEqualTo(new long[1024]);
    assertThat(p.fenceReason()).isNull();
    p.stored(stored(W, 0, 2, 6));
    CkfDelta next = delta(p.drain());
    assertThat(next.lease()).isEqualTo(2);
    assertThat(next.baseSequence()).isEqualTo(4);
    assertThat(next.sequence()).isEqualTo(5);
  }

  @Test
  void deltaLargerThanMaxDeltaImagesBecomesASnapshot() throws Exception {
    assertThat(CkfDelta.MAX_IMAGES).as("max_delta_images, ckf-cbi1.md §6.1").isEqualTo(349_525);
    CkfProducer p = producer(1 << 20);
    p.snapshotAfterBarrier(3);
    StoredBatch batch = new StoredBatch(1000);
    long id = 0;
    for (int e = 0; e < 500; e++) {
      batch.reset(W, 0);
      for (int i = 0; i < 1000; i++, id++) {
        batch.addBlock(id, id * 0x9E3779B97F4A7C15L);
      }
      assertThat(p.stored(batch)).isEqualTo(CkfOutcome.OK);
    }
    assertThat(p.dirtyWindow().touchedCount()).isGreaterThan(CkfDelta.MAX_IMAGES);
    CkfPublication pub = p.drain();
    assertThat(pub).isInstanceOf(CkfSnapshot.class);
    CkfSnapshot s = (CkfSnapshot) pub;
    assertThat(s.sequence()).isEqualTo(1);
    assertThat(s.lease()).isEqualTo(3);
    assertThat(s.words()).isEqualTo(p.copyWords());
    assertThat(p.stats().oversizedDeltas()).isEqualTo(1);
    p.removed(W, 0, new long[] {0});
    CkfDelta next = delta(p.drain());
    assertThat(next.baseSequence()).isEqualTo(1);
    assertThat(next.sequence()).isEqualTo(2);
  }

  @Test
  void replaceRanksRebuildsOffSideAndTheNextDeltaIsContinuous() throws Exception {
    CkfProducer p = producer(1024);
    BarrierSnapshot start = p.snapshotAfterBarrier(1);
    p.stored(stored(W, 0, 1, 100, 2, 101));
    p.stored(stored(W, 1, 1, 200));
    p.stored(stored(W + 1, 0, 9, 300));
    long[] consumer = apply(start.snapshot().words(), delta(p.drain()));

    RankReplacement r = RankReplacement.forMember(W, 0);
    assertThat(r.pushStored(stored(W, 0, 5, 100))).isEqualTo(CkfOutcome.OK);
    assertThat(r.pushStored(storedAfter(W, 0, 5, 6, 400))).isEqualTo(CkfOutcome.OK);
    RankReplacement added = RankReplacement.forMember(W + 2, 4);
    assertThat(added.pushStored(stored(W + 2, 4, 1, 200))).isEqualTo(CkfOutcome.OK);
    assertThat(p.replaceRanks(List.of(added, r))).isEqualTo(CkfOutcome.OK);

    assertThat(p.table().rngState()).as("fresh RNG at state0 (vectors.md §1.1), no kicks needed").isEqualTo(0xC050D0A84124DB84L);
    long child = SequenceHash.child(100, 400);
    assertThat(p.ownersOf(100)).isEqualTo(1);
    assertThat(p.ownersOf(child)).isEqualTo(1);
    assertThat(p.ownersOf(SequenceHash.child(100, 101))).isEqualTo(-1);
    assertThat(p.ownersOf(200)).isEqualTo(2);
    assertThat(p.ownersOf(300)).isEqualTo(1);
    assertThat(p.contains(SequenceHash.child(100, 101))).isFalse();
    assertThat(p.residentCount()).isEqualTo(4);
    assertThat(p.mappingCount()).isEqualTo(5);
    CkfDelta d = delta(p.drain());
    assertThat(d.baseSequence()).isEqualTo(1);
    assertThat(apply(consumer, d)).isEqualTo(p.copyWords());
  }

  /** ckf-cbi1.md §3.1: a rank rebuild creates a fresh state, which re-seeds the RNG to state0. */
  @Test
  void replaceRanksReseedsTheRngToState0() throws Exception {
    CkfProducer p = producer(2);
    BarrierSnapshot start = p.snapshotAfterBarrier(1);
    for (long i = 0; i < 9; i++) {
      p.stored(stored(W, 0, i, 1000 + i)); // the ninth is omitted after a full kick search
    }
    long[] consumer = apply(start.snapshot().words(), delta(p.drain()));
    assertThat(p.table().rngState()).isNotEqualTo(0xC050D0A84124DB84L);
    assertThat(p.replaceRanks(List.of(RankReplacement.forMember(W, 0)))).isEqualTo(CkfOutcome.OK);
    assertThat(p.table().rngState()).as("state0, vectors.md §1.1").isEqualTo(0xC050D0A84124DB84L);
    assertThat(p.copyWords()).containsOnly(0L);
    CkfDelta d = delta(p.drain());
    assertThat(d.imageCount()).isEqualTo(2);
    assertThat(apply(consumer, d)).containsOnly(0L);
  }

  @Test
  void replaceRanksWithDuplicateMembersFailsWithoutChange() {
    CkfProducer p = producer(1024);
    p.stored(stored(W, 0, 1, 100));
    ProducerState before = ProducerState.capture(p);
    RankReplacement a = RankReplacement.forMember(W, 0);
    RankReplacement b = RankReplacement.forMember(W, 0);
    b.pushStored(stored(W, 0, 2, 5));
    assertThat(p.replaceRanks(List.of(a, b))).isEqualTo(CkfOutcome.INVALID_TREE_DUMP);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
  }

  @Test
  void rankReplacementRejectsForeignMembersAndBrokenChainsWithoutChange() {
    RankReplacement r = RankReplacement.forMember(W, 0);
    assertThat(r.pushStored(stored(W, 1, 1, 100))).isEqualTo(CkfOutcome.INVALID_TREE_DUMP);
    assertThat(r.pushStored(storedAfter(W, 0, 77, 1, 100))).isEqualTo(CkfOutcome.PARENT_BLOCK_NOT_FOUND);
    assertThat(r.pushStored(stored(W, 0, 1, 100))).isEqualTo(CkfOutcome.OK);
    assertThat(r.pushStored(stored(W, 0, 2, 5, 1, 6))).isEqualTo(CkfOutcome.INVALID_BLOCK_SEQUENCE);
    assertThat(r.mappingCount()).isEqualTo(1);
  }

  @Test
  void replacingAMemberWithAnEmptyDumpRemovesIt() {
    CkfProducer p = producer(1024);
    p.stored(stored(W, 0, 1, 100));
    p.stored(stored(W, 1, 1, 101));
    assertThat(p.replaceRanks(List.of(RankReplacement.forMember(W, 0)))).isEqualTo(CkfOutcome.OK);
    assertThat(p.contains(100)).isFalse();
    assertThat(p.contains(101)).isTrue();
    assertThat(p.stats().members()).isEqualTo(1);
  }
}
