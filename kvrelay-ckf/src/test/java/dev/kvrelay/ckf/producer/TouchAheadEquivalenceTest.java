package dev.kvrelay.ckf.producer;

import static dev.kvrelay.ckf.producer.Fixtures.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The producer's touch-ahead (memory-level parallelism: Stored batches touch each block's state
 * {@link CkfProducer#TOUCH_AHEAD} blocks ahead, Removed lists are processed in chunks of that size) must
 * change no semantics and no output byte. The property tests elsewhere use batches of at most four
 * blocks, below the window; here batches and removal lists span several windows, with duplicate and
 * unknown ids, re-offers, conflicting ids, parents, kicks and capacity omissions.
 *
 * <p>The digests were recorded by running this exact workload on the producer as it was before the
 * touch-ahead was introduced (commit 1de7495): any change in outcomes, counters, bucket words or
 * published delta images changes them.
 */
class TouchAheadEquivalenceTest {
  private static final long[] WORKERS = {1, 2, -1L};

  /** splitmix64 step: a deterministic, seedable stream for the workload. */
  private static long next(long[] state) {
    long z = (state[0] += 0x9E37_79B9_7F4A_7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return z ^ (z >>> 31);
  }

  /**
   * A Stored run: one of {@code runs} id ranges (external id = tokens hash = {@code RUN·run + i}), so
   * that storing the same run again re-offers its prefix and extends it; about one run in four is
   * instead chained from a block of another run (parent) under its own external ids, which fails with
   * PARENT_BLOCK_NOT_FOUND when the member does not hold that block.
   */
  private static void fillRun(StoredBatch batch, long r, int size, int runs) {
    long base = RUN * Long.remainderUnsigned(r >>> 8, runs);
    long externalBase = base;
    if ((r & 3) == 0) {
      batch.parent(RUN * Long.remainderUnsigned(r >>> 24, runs) + ((r >>> 40) & 15));
      externalBase += CHAINED;
    }
    for (int i = 0; i < size; i++) {
      batch.addBlock(externalBase + i, base + i);
    }
  }

  /** Removal ids around one run: duplicates, unknown ids and ids of the chained variant included. */
  private static void fillRemoval(long[] ids, long r, int size, int runs) {
    long[] s = {r};
    long base = RUN * Long.remainderUnsigned(r >>> 8, runs) + ((r & 1) == 0 ? 0 : CHAINED);
    for (int i = 0; i < size; i++) {
      ids[i] = base + Long.remainderUnsigned(next(s), RUN);
    }
  }

  private static final long RUN = 128;
  private static final long CHAINED = 1L << 40;

  private static long fold(long digest, long value) {
    long[] s = {digest ^ value};
    return next(s);
  }

  /**
   * Runs {@code ops} random operations (Stored of 1..128 blocks, Removed of 1..128 ids, rarely Cleared or reset)
   * over {@code runs} id runs on a producer of {@code buckets} buckets holding a subscriber lease, and folds every outcome, every
   * published image and the final words and counters into one digest.
   *
   * @return the digest, then the counters capacityFailures, unknownRemovals, parentNotFound,
   *     invalidBlockSequence, publishedDeltas (to check that the workload reaches those paths)
   */
  static long[] workloadDigest(int buckets, long seed, int ops, int runs) throws CkfPublicationException {
    CkfProducer p = producer(buckets, 3);
    long[] rng = {seed};
    long digest = 0;
    digest = foldPublication(digest, p.snapshotAfterBarrier(0x5EED).snapshot());
    StoredBatch batch = new StoredBatch(4);
    long[] ids = new long[(int) RUN];
    for (int op = 0; op < ops; op++) {
      long v = next(rng);
      long worker = WORKERS[(int) Long.remainderUnsigned(v >>> 8, WORKERS.length)];
      int rank = (int) ((v >>> 16) & 1);
      int size = 1 + (int) Long.remainderUnsigned(v >>> 20, RUN);
      CkfOutcome outcome;
      switch ((int) (v & 7)) {
        case 0, 1, 2, 3 -> {
          fillRun(batch.reset(worker, rank), next(rng), size, runs);
          outcome = p.stored(batch);
        }
        case 4, 5, 6 -> {
          fillRemoval(ids, next(rng), size, runs);
          outcome = p.removed(worker, rank, ids, size);
        }
        default -> outcome = (v & 0x800) == 0 ? p.cleared(worker, rank) : p.resetRank(worker, rank);
      }
      digest = fold(digest, outcome.ordinal());
      if (p.shouldDrain()) {
        digest = foldPublication(digest, p.drain());
      }
    }
    for (long w : p.copyWords()) {
      digest = fold(digest, w);
    }
    CkfProducerStats s = p.stats();
    for (long c : new long[] {s.capacityFailures(), s.parentNotFound(), s.unknownRemovals(),
        s.invalidBlockSequence(), s.ownershipOverflows(), s.invariantViolations(), s.residentCount(), s.mappings(),
        s.uniqueCanonicalHashes(), s.members(), s.occupiedSlots(), s.unchangedPublications(),
        s.netRevertedBuckets(), s.publishedDeltas(), s.publishedSnapshots(), s.lastSequence()}) {
      digest = fold(digest, c);
    }
    return new long[] {digest, s.capacityFailures(), s.unknownRemovals(), s.parentNotFound(),
        s.invalidBlockSequence(), s.publishedDeltas()};
  }

  private static long foldPublication(long digest, CkfPublication pub) {
    if (pub instanceof CkfDelta d) {
      digest = fold(digest, d.sequence());
      for (int k = 0; k < d.imageCount(); k++) {
        digest = fold(fold(digest, d.bucket(k)), d.word(k));
      }
    } else if (pub instanceof CkfSnapshot s) {
      digest = fold(digest, s.sequence());
      for (long w : s.words()) {
        digest = fold(digest, w);
      }
    } else {
      digest = fold(digest, ((NoPublication) pub).ordinal() + 1000);
    }
    return digest;
  }

  /** Roomy table: no omissions; large batches and removal lists cross several touch-ahead windows. */
  @Test
  void largeBatchesOnARoomyTableMatchThePreTouchAheadDigest() throws CkfPublicationException {
    long[] r = workloadDigest(4096, 1, 400, 12);
    assertThat(r[1]).as("no omissions on the roomy table").isZero();
    assertThat(r[2]).as("unknown removals").isPositive();
    assertThat(r[3]).as("parent not found").isPositive();
    assertThat(r[5]).as("deltas").isPositive();
    assertThat(Long.toHexString(r[0])).isEqualTo("d5f61ecd2021015e");
  }

  /** Small table (kicks, rollbacks, capacity omissions, re-offers filling freed slots). */
  @Test
  void largeBatchesOnASmallTableMatchThePreTouchAheadDigest() throws CkfPublicationException {
    long[] r = workloadDigest(64, 2, 400, 12);
    assertThat(r[1]).as("capacity omissions").isPositive();
    assertThat(r[2]).as("unknown removals").isPositive();
    assertThat(r[5]).as("deltas").isPositive();
    assertThat(Long.toHexString(r[0])).isEqualTo("3cb0f1a6db9b4ee1");
  }

  /**
   * Ownership agrees with {@link OwnershipModel} after every operation when batches and removal lists are
   * longer than the touch-ahead window (duplicates and unknown ids included).
   */
  @Test
  void largeBatchesAndRemovalsAgreeWithTheOwnershipModel() {
    qt().withExamples(60)
        .forAll(longs().all())
        .checkAssert(seed -> {
          CkfProducer p = producer(4096);
          OwnershipModel model = new OwnershipModel();
          long[] rng = {seed};
          StoredBatch batch = new StoredBatch(4);
          for (int op = 0; op < 60; op++) {
            long v = next(rng);
            MemberId m = new MemberId(WORKERS[(int) Long.remainderUnsigned(v >>> 8, WORKERS.length)], 0);
            int size = CkfProducer.TOUCH_AHEAD + 1 + (int) Long.remainderUnsigned(v >>> 20, RUN - CkfProducer.TOUCH_AHEAD);
            if ((v & 1) == 0) {
              fillRun(batch.reset(m.workerId(), m.dpRank()), next(rng), size, 8);
              assertThat(p.stored(batch)).isEqualTo(model.stored(m, batch));
            } else {
              long[] ids = new long[size];
              fillRemoval(ids, next(rng), size, 8);
              model.removed(m, ids);
              assertThat(p.removed(m.workerId(), m.dpRank(), ids)).isEqualTo(CkfOutcome.OK);
            }
            ProducerState s = ProducerState.capture(p);
            Map<MemberId, Map<Long, Long>> nonEmpty = new TreeMap<>();
            s.lineages().forEach((member, l) -> {
              if (!l.isEmpty()) {
                nonEmpty.put(member, l);
              }
            });
            assertThat(nonEmpty).isEqualTo(model.nonEmptyLineages());
            assertThat(s.mappings()).isEqualTo(model.mappings());
            assertThat(p.stats().uniqueCanonicalHashes()).isEqualTo(model.owners.size());
            for (Map.Entry<Long, Long> e : model.owners.entrySet()) {
              assertThat(p.ownersOf(e.getKey())).isEqualTo(e.getValue());
              assertThat(p.isResident(e.getKey())).isTrue();
              assertThat(p.contains(e.getKey())).isTrue();
            }
          }
        });
  }
}
