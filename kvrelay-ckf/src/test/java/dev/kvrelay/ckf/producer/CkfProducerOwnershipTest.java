package dev.kvrelay.ckf.producer;

import static dev.kvrelay.ckf.producer.Fixtures.producer;
import static dev.kvrelay.ckf.producer.Fixtures.stored;
import static dev.kvrelay.ckf.producer.Fixtures.storedAfter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.hashing.SequenceHash;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ckf-cbi1.md §3.4–§3.5: exact ownership, omissions, typed rejections without state change. */
class CkfProducerOwnershipTest {
  private static final long W1 = 7587891234567890123L;
  private static final long W2 = -2L; // u64 0xFFFF…FE: exercises unsigned member order

  /** Two different canonical hashes with the same (fp, a, b) under the default seed and B buckets. */
  private static long[] representationCollision(int buckets) {
    CkfAddressing addr = CkfAddressing.of(CkfFormat.withDefaultSeed(buckets));
    Map<Long, Long> seen = new HashMap<>();
    for (long h = 1; ; h++) {
      Long other = seen.putIfAbsent(addr.prepare(h), h);
      if (other != null) {
        return new long[] {other, h};
      }
    }
  }

  @Test
  void upstreamDistinctHashesWithOneCkfRepresentationKeepSeparateCopies() {
    long[] pair = representationCollision(1024);
    CkfProducer p = producer(1024);
    assertThat(p.stored(stored(W1, 0, 100, pair[0]))).isEqualTo(CkfOutcome.OK);
    assertThat(p.stored(stored(W1, 0, 101, pair[1]))).isEqualTo(CkfOutcome.OK);
    assertThat(p.residentCount()).isEqualTo(2);
    assertThat(p.stats().occupiedSlots()).isEqualTo(2);
    assertThat(p.removed(W1, 0, new long[] {100})).isEqualTo(CkfOutcome.OK);
    assertThat(p.contains(pair[1])).isTrue();
    assertThat(p.stats().occupiedSlots()).isEqualTo(1);
    assertThat(p.removed(W1, 0, new long[] {101})).isEqualTo(CkfOutcome.OK);
    assertThat(p.contains(pair[0])).isFalse();
    assertThat(p.copyWords()).containsOnly(0L);
  }

  @Test
  void upstreamRepresentationCollisionRemainsPresentUntilBothOwnersAreRemoved() {
    long[] pair = representationCollision(1024);
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 1, pair[0]));
    p.stored(stored(W2, 3, 2, pair[1]));
    p.cleared(W1, 0);
    assertThat(p.contains(pair[0])).isTrue();
    assertThat(p.contains(pair[1])).isTrue();
    assertThat(p.ownersOf(pair[0])).isEqualTo(-1);
    assertThat(p.ownersOf(pair[1])).isEqualTo(1);
    p.removed(W2, 3, new long[] {2});
    assertThat(p.contains(pair[0])).isFalse();
    assertThat(p.contains(pair[1])).isFalse();
  }

  /** Decision (b) of ckf-cbi1.md §3.4: the refcount counts (member, external id) mappings. */
  @Test
  void decisionB_upstreamClearRemovesAllSameSourceAliasesOfOneCanonicalHash() {
    CkfProducer p = producer(1024);
    long tokens = 0x0123456789ABCDEFL;
    p.stored(stored(W1, 0, 500, tokens));
    p.stored(stored(W1, 0, 501, tokens));
    assertThat(p.ownersOf(tokens)).as("two aliases of one member count 2").isEqualTo(2);
    assertThat(p.mappingCount()).isEqualTo(2);
    assertThat(p.residentCount()).isEqualTo(1);
    assertThat(p.stats().occupiedSlots()).isEqualTo(1);
    p.stored(stored(W1, 1, 600, tokens)); // sibling rank
    assertThat(p.ownersOf(tokens)).isEqualTo(3);
    p.cleared(W1, 0);
    assertThat(p.ownersOf(tokens)).isEqualTo(1);
    assertThat(p.contains(tokens)).isTrue();
    p.cleared(W1, 1);
    assertThat(p.ownersOf(tokens)).isEqualTo(-1);
    assertThat(p.contains(tokens)).isFalse();
    assertThat(p.copyWords()).containsOnly(0L);
    assertThat(p.mappingCount()).isZero();
  }

  @Test
  void decisionB_removingOneAliasKeepsTheHashResident() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 500, 42, 501, 0)); // ids 500 -> root(42); 501 -> child(42, 0)
    p.stored(stored(W1, 0, 502, 42));
    assertThat(p.ownersOf(42)).isEqualTo(2);
    p.removed(W1, 0, new long[] {500});
    assertThat(p.ownersOf(42)).isEqualTo(1);
    assertThat(p.contains(42)).isTrue();
    p.removed(W1, 0, new long[] {502});
    assertThat(p.contains(42)).isFalse();
  }

  @Test
  void upstreamCapturedVllmAndSglangIdsMapToTheSameDynamoRoot() {
    long[] tokens = {0x0123456789ABCDEFL, 0x1111222233334444L, 0xDEADBEEFCAFEBABEL};
    long[] canonical = {0x0123456789ABCDEFL, 0x98E7E55F299CF592L, 0x65D53B99C5252D19L}; // vectors.md §2 (U)
    CkfProducer p = producer(1024);
    // vLLM-style signed ids on one member, SGLang-style small ids on another, same token blocks.
    assertThat(p.stored(stored(W1, 0, -8_000_000_000_000_000_001L, tokens[0])
        .addBlock(-8_000_000_000_000_000_002L, tokens[1]))).isEqualTo(CkfOutcome.OK);
    assertThat(p.stored(storedAfter(W1, 0, -8_000_000_000_000_000_002L, -8_000_000_000_000_000_003L, tokens[2])))
        .isEqualTo(CkfOutcome.OK);
    assertThat(p.stored(stored(W2, 0, 1, tokens[0], 2, tokens[1], 3, tokens[2]))).isEqualTo(CkfOutcome.OK);
    for (long c : canonical) {
      assertThat(p.ownersOf(c)).isEqualTo(2);
      assertThat(p.isResident(c)).isTrue();
      assertThat(p.contains(c)).isTrue();
    }
    assertThat(p.residentCount()).isEqualTo(3);
    assertThat(p.stats().uniqueCanonicalHashes()).isEqualTo(3);
    assertThat(p.mappingCount()).isEqualTo(6);
    assertThat(p.stats().occupiedSlots()).isEqualTo(3);
  }

  @Test
  void parentIsResolvedThroughThisMembersLineageOnly() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 10, 17));
    assertThat(p.stored(storedAfter(W1, 0, 10, 11, 23))).isEqualTo(CkfOutcome.OK);
    assertThat(p.ownersOf(0xE7D5CFB58104F9EFL)).isEqualTo(1); // child(root(17), 23), vectors.md §2
    ProducerState before = ProducerState.capture(p);
    assertThat(p.stored(storedAfter(W1, 1, 10, 12, 23))).isEqualTo(CkfOutcome.PARENT_BLOCK_NOT_FOUND);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
    assertThat(p.stats().parentNotFound()).isEqualTo(1);
  }

  @Test
  void unknownParentRejectsWholeEventWithoutStateChange() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 10, 17, 11, 18));
    ProducerState before = ProducerState.capture(p);
    long pending = p.pendingEvents();
    assertThat(p.stored(storedAfter(W1, 0, 999, 12, 19, 13, 20))).isEqualTo(CkfOutcome.PARENT_BLOCK_NOT_FOUND);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
    assertThat(p.pendingEvents()).as("a failed event still counts").isEqualTo(pending + 1);
  }

  @Test
  void missingParentWithNonZeroStartPositionIsInvalidBlockSequence() {
    CkfProducer p = producer(1024);
    ProducerState before = ProducerState.capture(p);
    assertThat(p.stored(stored(W1, 0, 10, 17).startPosition(3))).isEqualTo(CkfOutcome.INVALID_BLOCK_SEQUENCE);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
    assertThat(p.stats().invalidBlockSequence()).isEqualTo(1);
    assertThat(p.stored(stored(W1, 0, 10, 17).startPosition(0))).isEqualTo(CkfOutcome.OK);
    assertThat(p.stored(storedAfter(W1, 0, 10, 11, 18).startPosition(1))).isEqualTo(CkfOutcome.OK);
  }

  @Test
  void externalIdRemappedToAnotherCanonicalRejectsWholeBatch() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 10, 17));
    ProducerState before = ProducerState.capture(p);
    // block 20 is new and valid, block 10 conflicts: nothing of the batch may be committed.
    assertThat(p.stored(stored(W1, 0, 20, 5, 10, 99))).isEqualTo(CkfOutcome.INVALID_BLOCK_SEQUENCE);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
  }

  @Test
  void externalIdRepeatedInsideOneBatchWithAnotherCanonicalRejectsWholeBatch() {
    CkfProducer p = producer(1024);
    ProducerState before = ProducerState.capture(p);
    assertThat(p.stored(stored(W1, 0, 30, 1, 31, 2, 30, 3))).isEqualTo(CkfOutcome.INVALID_BLOCK_SEQUENCE);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
    // the scratch of the rejected batch must not leak into the next one
    assertThat(p.stored(stored(W1, 0, 30, 1))).isEqualTo(CkfOutcome.OK);
    assertThat(p.mappingCount()).isEqualTo(1);
  }

  @Test
  void sameExternalIdWithSameCanonicalIsAReofferNotANewOwner() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 10, 17, 11, 18));
    ProducerState before = ProducerState.capture(p);
    assertThat(p.stored(stored(W1, 0, 10, 17, 11, 18))).isEqualTo(CkfOutcome.OK);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
    // Extending the re-offered chain adds only the new block.
    assertThat(p.stored(stored(W1, 0, 10, 17, 11, 18, 12, 19))).isEqualTo(CkfOutcome.OK);
    assertThat(p.mappingCount()).isEqualTo(3);
  }

  @Test
  void ownerCountOverflowIsTypedAndChangesNothing() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 10, 17));
    p.forceOwnersForTest(17, 0xFFFF_FFFFL);
    ProducerState before = ProducerState.capture(p);
    // A new mapping to canonical 17 (root) followed by a valid sibling block: the whole batch is refused.
    assertThat(p.stored(stored(W2, 1, 40, 17, 41, 3))).isEqualTo(CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
    assertThat(p.ownersOf(17)).isEqualTo(0xFFFF_FFFFL);
    assertThat(p.stats().ownershipOverflows()).isEqualTo(1);
    // A re-offer by the existing owner is not a new mapping and is accepted.
    assertThat(p.stored(stored(W1, 0, 10, 17))).isEqualTo(CkfOutcome.OK);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
  }

  @Test
  void unknownRemovalsAreCountedNoOps() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 10, 17));
    ProducerState before = ProducerState.capture(p);
    assertThat(p.removed(W1, 0, new long[] {11, 12})).isEqualTo(CkfOutcome.OK);
    assertThat(p.removed(W2, 0, new long[] {10})).isEqualTo(CkfOutcome.OK);
    assertThat(ProducerState.capture(p).words()).isEqualTo(before.words());
    assertThat(ProducerState.capture(p).owners()).isEqualTo(before.owners());
    assertThat(p.stats().unknownRemovals()).isEqualTo(3);
    assertThat(p.removed(W1, 0, new long[] {10, 10})).isEqualTo(CkfOutcome.OK);
    assertThat(p.stats().unknownRemovals()).isEqualTo(4);
    assertThat(p.copyWords()).containsOnly(0L);
  }

  @Test
  void removedCountOutsideArrayIsRejectedBeforeAnyChange() {
    CkfProducer p = producer(1024);
    assertThatThrownBy(() -> p.removed(W1, 0, new long[1], 2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> p.removed(W1, 0, new long[1], -1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(p.pendingEvents()).isZero();
  }

  @Test
  void clearedTouchesOnlyThatMemberAndRemoveWorkerAllItsRanks() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 1, 100));
    p.stored(stored(W1, 1, 1, 101));
    p.stored(stored(W1, 2, 1, 102));
    p.stored(stored(W2, 0, 1, 103));
    p.cleared(W1, 1);
    assertThat(p.contains(101)).isFalse();
    assertThat(p.contains(100)).isTrue();
    assertThat(p.contains(102)).isTrue();
    assertThat(p.removeWorker(W1)).isEqualTo(CkfOutcome.OK);
    assertThat(p.contains(100)).isFalse();
    assertThat(p.contains(102)).isFalse();
    assertThat(p.contains(103)).isTrue();
    assertThat(p.stats().members()).isEqualTo(1);
    assertThat(p.mappingCount()).isEqualTo(1);
    assertThat(p.cleared(W1, 9)).as("clearing an unknown member is a no-op").isEqualTo(CkfOutcome.OK);
  }

  @Test
  void capacityOmissionKeepsOwnershipAndReportsNoDirtyBucket() {
    CkfProducer p = producer(2); // 8 slots
    for (long i = 0; i < 8; i++) {
      assertThat(p.stored(stored(W1, 0, i, 1000 + i))).isEqualTo(CkfOutcome.OK);
    }
    p.drain();
    long[] words = p.copyWords();
    assertThat(p.stored(stored(W1, 0, 8, 1008))).isEqualTo(CkfOutcome.CAPACITY_EXHAUSTED);
    assertThat(p.copyWords()).isEqualTo(words);
    assertThat(p.dirtyWindow().isEmpty()).isTrue();
    assertThat(p.ownersOf(1008)).isEqualTo(1);
    assertThat(p.isResident(1008)).isFalse();
    assertThat(p.mappingCount()).isEqualTo(9);
    assertThat(p.residentCount()).isEqualTo(8);
    assertThat(p.capacityFailures()).isEqualTo(1);
    assertThat(p.drain()).isEqualTo(NoPublication.UNCHANGED);

    // A re-offer while still full fails silently and is not a new omission.
    assertThat(p.stored(stored(W1, 0, 8, 1008))).isEqualTo(CkfOutcome.OK);
    assertThat(p.capacityFailures()).isEqualTo(1);
    // Free a slot; the re-offer (relocation-free) now admits the hash.
    p.removed(W1, 0, new long[] {0});
    assertThat(p.stored(stored(W1, 0, 8, 1008))).isEqualTo(CkfOutcome.OK);
    assertThat(p.isResident(1008)).isTrue();
    assertThat(p.contains(1008)).isTrue();
    assertThat(p.residentCount()).isEqualTo(8);
    assertThat(p.capacityFailures()).isEqualTo(1);
  }

  @Test
  void removingAnOmittedHashOnlyDecrementsOwners() {
    CkfProducer p = producer(2);
    for (long i = 0; i < 8; i++) {
      p.stored(stored(W1, 0, i, 1000 + i));
    }
    p.stored(stored(W1, 0, 8, 1008));
    p.stored(stored(W2, 0, 8, 1008)); // a new owner retries a full insert: still no room
    assertThat(p.capacityFailures()).isEqualTo(2);
    assertThat(p.ownersOf(1008)).isEqualTo(2);
    long[] words = p.copyWords();
    assertThat(p.removed(W1, 0, new long[] {8})).isEqualTo(CkfOutcome.OK);
    assertThat(p.removed(W2, 0, new long[] {8})).isEqualTo(CkfOutcome.OK);
    assertThat(p.copyWords()).isEqualTo(words);
    assertThat(p.ownersOf(1008)).isEqualTo(-1);
    assertThat(p.stats().invariantViolations()).isZero();
  }

  @Test
  void newOwnerOfAnOmittedHashRetriesWithRelocation() {
    CkfProducer p = producer(2);
    for (long i = 0; i < 8; i++) {
      p.stored(stored(W1, 0, i, 1000 + i));
    }
    p.stored(stored(W1, 0, 8, 1008));
    p.removed(W1, 0, new long[] {3});
    assertThat(p.stored(stored(W2, 0, 77, 1008))).isEqualTo(CkfOutcome.OK);
    assertThat(p.isResident(1008)).isTrue();
    assertThat(p.ownersOf(1008)).isEqualTo(2);
  }

  /**
   * ckf-cbi1.md §3.4 commit order: the event's new mappings are committed and their non-resident
   * canonical hashes inserted with relocation first; only then are already-mapped, non-resident hashes
   * re-offered relocation-free. A re-offer must never take the last free slot from a new hash of the
   * same event (which would turn a silent re-offer failure into a reported omission).
   */
  @Test
  void newHashesOfAnEventAreAdmittedBeforeItsReoffers() {
    CkfProducer p = producer(2); // 8 slots; every hash has buckets {0, 1}
    for (long i = 0; i < 8; i++) {
      assertThat(p.stored(stored(W1, 0, i, 1000 + i))).isEqualTo(CkfOutcome.OK);
    }
    assertThat(p.stored(stored(W2, 0, 50, 1008))).isEqualTo(CkfOutcome.CAPACITY_EXHAUSTED);
    assertThat(p.removed(W1, 0, new long[] {0})).isEqualTo(CkfOutcome.OK); // exactly one free slot
    long fresh = SequenceHash.child(1008, 77);

    // Block 0 re-offers the omitted root (external 50), block 1 is a new child mapping.
    CkfOutcome outcome = p.stored(stored(W2, 0, 50, 1008, 51, 77));

    assertThat(outcome).as("the new hash gets the free slot; the re-offer fails silently").isEqualTo(CkfOutcome.OK);
    assertThat(p.isResident(fresh)).isTrue();
    assertThat(p.isResident(1008)).isFalse();
    assertThat(p.capacityFailures()).as("a failed re-offer is never a new omission").isEqualTo(1);
    assertThat(p.ownersOf(1008)).isEqualTo(1);
    assertThat(p.ownersOf(fresh)).isEqualTo(1);
  }

  /**
   * Upstream test {@code shared_ownership_survives_nonfinal_then_final_removal}: once a member's last
   * mapping is removed it no longer counts as a member.
   */
  @Test
  void upstreamSharedOwnershipSurvivesNonfinalThenFinalRemoval() {
    CkfProducer p = producer(1024);
    p.stored(stored(W1, 0, 80_001, 11));
    p.stored(stored(W2, 0, 90_001, 11));
    assertThat(p.mappingCount()).isEqualTo(2);
    assertThat(p.stats().uniqueCanonicalHashes()).isEqualTo(1);
    assertThat(p.stats().members()).isEqualTo(2);

    p.removed(W1, 0, new long[] {80_001});
    assertThat(p.contains(11)).isTrue();
    assertThat(p.stats().uniqueCanonicalHashes()).isEqualTo(1);
    assertThat(p.stats().members()).isEqualTo(1);

    p.removed(W2, 0, new long[] {90_001});
    assertThat(p.contains(11)).isFalse();
    assertThat(p.stats().members()).isZero();
    assertThat(p.stats().uniqueCanonicalHashes()).isZero();
    // The emptied member stores again like a new one.
    assertThat(p.stored(stored(W1, 0, 80_001, 11))).isEqualTo(CkfOutcome.OK);
    assertThat(p.stats().members()).isEqualTo(1);
  }

  @Test
  void emptyStoredIsANoOpThatStillCounts() {
    CkfProducer p = producer(1024);
    ProducerState before = ProducerState.capture(p);
    assertThat(p.stored(stored(W1, 0).parent(12345))).isEqualTo(CkfOutcome.OK);
    assertThat(ProducerState.capture(p)).isEqualTo(before);
    assertThat(p.pendingEvents()).isEqualTo(1);
  }

  @Test
  void canonicalHashZeroIsAnOrdinaryKey() {
    CkfProducer p = producer(1024);
    p.stored(stored(0, 0, 0, 0)); // worker 0, rank 0, external id 0, tokens 0 -> canonical 0
    assertThat(p.ownersOf(0)).isEqualTo(1);
    assertThat(p.contains(0)).isTrue();
    p.removed(0, 0, new long[] {0});
    assertThat(p.contains(0)).isFalse();
    assertThat(p.copyWords()).containsOnly(0L);
  }
}
