package dev.kvrelay.ckf.producer;

import static dev.kvrelay.ckf.producer.Fixtures.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * State-machine properties of the producer against {@link OwnershipModel}. Each example is a list of
 * random 64-bit op codes decoded by {@link #decode}; small id and token alphabets make duplicate
 * external ids, aliases, conflicts, unknown parents and unknown removals frequent.
 */
class CkfProducerProperties {
  private static final MemberId[] MEMBERS = {
    new MemberId(1, 0), new MemberId(1, 1), new MemberId(2, 0), new MemberId(-1L, 7)};

  /** One decoded operation. */
  private record Op(int kind, MemberId member, StoredBatch batch, long[] ids, long bits) {}

  private static Op decode(long v, int tokenRange) {
    int kind = (int) (v & 7);
    MemberId m = MEMBERS[(int) ((v >>> 3) & 3)];
    int blocks = (int) ((v >>> 5) & 3) + (kind == 3 ? 1 : 0);
    long extBase = (v >>> 7) & 15;
    long tokBase = (v >>> 11) & 63;
    long parent = (v >>> 17) & 15;
    StoredBatch b = new StoredBatch(1).reset(m.workerId(), m.dpRank());
    for (int i = 0; i < blocks; i++) {
      b.addBlock((extBase + 3L * i) & 15, (tokBase + 5L * i) % tokenRange);
    }
    if (kind == 3) {
      b.parent(parent);
    }
    if (kind == 7) {
      b.startPosition((v >>> 21) & 1);
    }
    long[] ids = new long[(int) ((v >>> 22) & 3) + 1];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = (v >>> (24 + 4 * i)) & 15;
    }
    return new Op(kind, m, b, ids, v >>> 40);
  }

  /** Applies one ownership op to producer and model; checks outcome agreement and omission rules. */
  private static void applyOwnershipOp(Op op, CkfProducer p, OwnershipModel model, boolean roomy) {
    switch (op.kind()) {
      case 0, 1, 2, 3, 7 -> {
        ProducerState before = ProducerState.capture(p);
        long failuresBefore = p.capacityFailures();
        CkfOutcome expected = model.stored(op.member(), op.batch());
        CkfOutcome actual = p.stored(op.batch());
        if (expected != CkfOutcome.OK) {
          assertThat(actual).isEqualTo(expected);
          assertThat(ProducerState.capture(p)).as("rejection changes nothing").isEqualTo(before);
        } else if (roomy) {
          assertThat(actual).isEqualTo(CkfOutcome.OK);
        } else {
          assertThat(actual).isIn(CkfOutcome.OK, CkfOutcome.CAPACITY_EXHAUSTED);
          assertThat(p.capacityFailures() > failuresBefore).isEqualTo(actual == CkfOutcome.CAPACITY_EXHAUSTED);
          if (actual == CkfOutcome.CAPACITY_EXHAUSTED) {
            boolean knownOmission = false;
            for (Long c : op.batch().size() == 0 ? List.<Long>of() : canonicalsOf(op, model)) {
              knownOmission |= model.owners.containsKey(c) && !p.isResident(c);
            }
            assertThat(knownOmission).as("an omission is a hash the model owns and the table lacks").isTrue();
          }
        }
      }
      case 4 -> {
        model.removed(op.member(), op.ids());
        assertThat(p.removed(op.member().workerId(), op.member().dpRank(), op.ids())).isEqualTo(CkfOutcome.OK);
      }
      case 5 -> {
        model.cleared(op.member());
        assertThat(p.cleared(op.member().workerId(), op.member().dpRank())).isEqualTo(CkfOutcome.OK);
      }
      default -> {
        if ((op.bits() & 1) == 0) {
          model.cleared(op.member());
          assertThat(p.resetRank(op.member().workerId(), op.member().dpRank())).isEqualTo(CkfOutcome.OK);
        } else {
          for (MemberId m : MEMBERS) {
            if (m.workerId() == op.member().workerId()) {
              model.cleared(m);
            }
          }
          assertThat(p.removeWorker(op.member().workerId())).isEqualTo(CkfOutcome.OK);
        }
      }
    }
  }

  /** Canonical hashes of a batch that the model accepted (the batch's lineage is now in the model). */
  private static List<Long> canonicalsOf(Op op, OwnershipModel model) {
    List<Long> out = new ArrayList<>();
    Map<Long, Long> lineage = model.lineages.getOrDefault(op.member(), Map.of());
    for (int i = 0; i < op.batch().size(); i++) {
      Long c = lineage.get(op.batch().externalHash(i));
      if (c != null) {
        out.add(c);
      }
    }
    return out;
  }

  /** Invariants (a): residency, occupancy, contains, and exact agreement with the model. */
  private static void assertAgreesWithModel(CkfProducer p, OwnershipModel model, boolean roomy) {
    ProducerState s = ProducerState.capture(p);
    Map<MemberId, Map<Long, Long>> nonEmpty = new TreeMap<>();
    s.lineages().forEach((m, l) -> {
      if (!l.isEmpty()) {
        nonEmpty.put(m, l);
      }
    });
    assertThat(nonEmpty).isEqualTo(model.nonEmptyLineages());
    Map<Long, Long> owners = new HashMap<>();
    long resident = 0;
    for (Map.Entry<Long, List<Object>> e : s.owners().entrySet()) {
      owners.put(e.getKey(), (Long) e.getValue().get(0));
      boolean isResident = (Boolean) e.getValue().get(1);
      if (isResident) {
        resident++;
        assertThat(p.contains(e.getKey())).as("resident %s found", Long.toUnsignedString(e.getKey())).isTrue();
      } else {
        assertThat(roomy).as("omissions only when the table is small").isFalse();
      }
    }
    assertThat(owners).isEqualTo(model.owners);
    assertThat(s.residentCount()).isEqualTo(resident);
    assertThat(s.occupiedSlots()).isEqualTo(resident);
    long occupied = 0;
    for (long w : s.words()) {
      occupied += Long.bitCount(((w & 0x7FFF_7FFF_7FFF_7FFFL) + 0x7FFF_7FFF_7FFF_7FFFL | w) & 0x8000_8000_8000_8000L);
    }
    assertThat(occupied).as("non-zero lanes in the words").isEqualTo(resident);
    assertThat(s.mappings()).isEqualTo(model.mappings());
    assertThat(p.stats().uniqueCanonicalHashes()).isEqualTo(model.owners.size());
  }

  private static void clearEveryMemberAndAssertEmpty(CkfProducer p) {
    for (MemberId m : MEMBERS) {
      p.cleared(m.workerId(), m.dpRank());
    }
    assertThat(p.ownersMap().size()).isZero();
    assertThat(p.memberDirectory().size()).isZero();
    assertThat(p.copyWords()).containsOnly(0L);
    assertThat(p.residentCount()).isZero();
    assertThat(p.mappingCount()).isZero();
    assertThat(p.table().occupiedSlots()).isZero();
  }

  /** (a) + (d) on a roomy table: exact agreement, no omissions; all members cleared ⇒ everything empty. */
  @Test
  void roomyTableAgreesExactlyWithModelAndClearsToEmpty() {
    qt().withExamples(400)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 80))
        .checkAssert(ops -> {
          CkfProducer p = producer(1024);
          OwnershipModel model = new OwnershipModel();
          for (long v : ops) {
            applyOwnershipOp(decode(v, 64), p, model, true);
            assertAgreesWithModel(p, model, true);
          }
          assertThat(p.capacityFailures()).isZero();
          clearEveryMemberAndAssertEmpty(p);
        });
  }

  /** (a) + omissions + (d) on tiny tables (B = 2, 4): kicks, rollbacks and capacity omissions. */
  @Test
  void tinyTableKeepsInvariantsWithOmissionsOnlyForModelHashes() {
    qt().withExamples(400)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 80), longs().between(1, 2))
        .checkAssert((ops, log2) -> {
          CkfProducer p = producer(1 << log2);
          OwnershipModel model = new OwnershipModel();
          for (long v : ops) {
            applyOwnershipOp(decode(v, 1 << 20), p, model, false);
            assertAgreesWithModel(p, model, false);
          }
          clearEveryMemberAndAssertEmpty(p);
        });
  }

  /**
   * (d) replay: a consumer that starts from the first barrier snapshot and applies every emitted delta
   * (and every later snapshot) holds exactly the producer's words after each publication, across
   * drains, rank replacements, barrier snapshots and lost deliveries.
   */
  @Test
  void replayingPublicationsReproducesTheProducerWords() {
    qt().withExamples(300)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 100), longs().between(2, 4))
        .checkAssert((ops, log2) -> {
          CkfProducer p = producer(1 << log2);
          OwnershipModel model = new OwnershipModel();
          Consumer consumer = new Consumer();
          long lease = 1;
          try {
            consumer.install(p.snapshotAfterBarrier(lease));
          } catch (CkfPublicationException e) {
            throw new AssertionError(e);
          }
          for (long v : ops) {
            int action = (int) ((v >>> 60) & 15);
            if (action < 9) {
              applyOwnershipOp(decode(v, 1 << 16), p, model, false);
            } else if (action < 12) {
              consumer.accept(p.drain(), p);
            } else if (action == 12) {
              boolean wasFenced = p.fenceReason() != null;
              try {
                BarrierSnapshot b = p.snapshotAfterBarrier(++lease);
                if (b.tail() != null) {
                  consumer.accept(b.tail(), p);
                }
                if (!wasFenced) {
                  assertThat(consumer.words).as("tail brings the consumer to the snapshot").isEqualTo(b.snapshot().words());
                }
                consumer.install(b);
              } catch (CkfPublicationException e) {
                throw new AssertionError(e);
              }
            } else if (action == 13) {
              CkfPublication pub = p.drain();
              if (pub instanceof CkfDelta d) {
                p.deliveryFailed(d); // lost in transit: the consumer never sees it
                assertThat(p.fenceReason()).isEqualTo(FenceReason.DELIVERY_UNCERTAIN);
              } else {
                consumer.accept(pub, p);
              }
            } else {
              replaceRandomRank(v, p, model);
            }
            assertAgreesWithModel(p, model, false);
          }
          if (p.fenceReason() == null) {
            consumer.accept(p.drain(), p);
            assertThat(consumer.words).isEqualTo(p.copyWords());
          }
        });
  }

  private static void replaceRandomRank(long v, CkfProducer p, OwnershipModel model) {
    MemberId m = MEMBERS[(int) ((v >>> 3) & 3)];
    RankReplacement r = RankReplacement.forMember(m.workerId(), m.dpRank());
    Map<Long, Long> lineage = new HashMap<>();
    for (int k = 0; k < 2; k++) {
      Op op = decode(Long.rotateLeft(v, 13 * (k + 1)), 1 << 16);
      StoredBatch b = op.batch();
      StoredBatch forMember = new StoredBatch(1).reset(m.workerId(), m.dpRank());
      for (int i = 0; i < b.size(); i++) {
        forMember.addBlock(b.externalHash(i), b.tokensHash(i));
      }
      Map<Long, Long> fresh = new HashMap<>();
      CkfOutcome expected = OwnershipModel.fold(lineage, forMember, fresh);
      assertThat(r.pushStored(forMember)).isEqualTo(expected);
      lineage.putAll(fresh);
    }
    CkfOutcome outcome = p.replaceRanks(List.of(r));
    assertThat(outcome).isIn(CkfOutcome.OK, CkfOutcome.CAPACITY_EXHAUSTED);
    model.replace(m, lineage);
    assertThat(p.table().occupiedSlots()).isEqualTo(p.residentCount());
  }

  /** A consumer copy of the table. */
  private static final class Consumer {
    long[] words = new long[0];
    long sequence;
    long lease;

    void install(BarrierSnapshot b) {
      words = b.snapshot().words().clone();
      sequence = b.snapshot().sequence();
      lease = b.snapshot().lease();
    }

    void accept(CkfPublication pub, CkfProducer p) {
      if (pub instanceof CkfDelta d) {
        assertThat(d.lease()).isEqualTo(lease);
        assertThat(d.baseSequence()).isEqualTo(sequence);
        assertThat(d.sequence()).isEqualTo(sequence + 1);
        assertThat(d.imageCount()).isPositive();
        for (int i = 0; i < d.imageCount(); i++) {
          assertThat(words[d.bucket(i)]).as("an image always changes its bucket").isNotEqualTo(d.word(i));
          words[d.bucket(i)] = d.word(i);
        }
        sequence = d.sequence();
        assertThat(words).isEqualTo(p.copyWords());
      } else if (pub instanceof CkfSnapshot s) {
        words = s.words().clone();
        sequence = s.sequence();
      } else if (pub == NoPublication.UNCHANGED || pub == NoPublication.NOTHING_PENDING) {
        if (p.fenceReason() == null) {
          assertThat(words).isEqualTo(p.copyWords());
        }
      }
    }
  }
}
