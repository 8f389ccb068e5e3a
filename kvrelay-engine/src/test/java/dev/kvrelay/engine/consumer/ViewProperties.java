package dev.kvrelay.engine.consumer;

import static dev.kvrelay.engine.consumer.ReplicaFixture.LANE_A;
import static dev.kvrelay.engine.consumer.ReplicaFixture.LANE_B;
import static dev.kvrelay.engine.consumer.ReplicaFixture.PRODUCER_A;
import static dev.kvrelay.engine.consumer.ReplicaFixture.RELAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** QuickTheories invariants of the consumer views. */
class ViewProperties {

  /** Any single corrupted byte of a snapshot chunk or delta invalidates replica A only; B is untouched. */
  @Test
  void anyCorruptedFrameInvalidatesOnlyThatReplica() {
    qt().withExamples(300)
        .forAll(booleans().all(), integers().between(0, 1_000_000), integers().between(1, 255))
        .checkAssert((delta, position, xor) -> {
          ReplicaFixture fx = new ReplicaFixture();
          fx.installB();
          long[] wordsB = fx.laneWords(LANE_B);
          PoolFrame frame;
          if (delta) {
            fx.installA();
            fx.store(fx.producerA, 3);
            frame = ReplicaFixture.deltaFrame(fx.producerA, PRODUCER_A);
          } else {
            fx.bindA(1);
            fx.store(fx.producerA, 3);
            frame = ReplicaFixture.snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0);
          }
          byte[] corrupted = frame.payload().clone();
          corrupted[position % corrupted.length] ^= (byte) (int) xor;
          PoolFrame bad = new PoolFrame(frame.protocolVersion(), frame.contractMarker(), frame.relay(),
              frame.producer(), frame.baseSequence(), frame.sequence(), frame.sendTsUs(), frame.kindNumber(),
              corrupted);
          PoolReplica.FrameResult r = fx.replicaA.apply(bad, 50);
          assertThat(r.outcome()).isEqualTo(PoolReplica.Outcome.INVALIDATED);
          assertThat(r.termination()).isIn(ReplicaTermination.DECODE_FAILED, ReplicaTermination.ENVELOPE_MISMATCH);
          assertThat(fx.ready(LANE_A)).isFalse();
          assertThat(fx.replicaA.isUsable(50)).isFalse();
          assertThat(fx.replicaB.state()).isEqualTo(ReplicaState.LIVE);
          assertThat(fx.ready(LANE_B)).isTrue();
          assertThat(fx.laneWords(LANE_B)).containsExactly(wordsB);
          // refused afterwards, nothing changes
          assertThat(fx.replicaA.apply(frame, 60).outcome()).isEqualTo(PoolReplica.Outcome.REFUSED);
          assertThat(fx.ready(LANE_A)).isFalse();
        });
  }

  /** Any kind number other than 1, 2, 3 invalidates (UNSPECIFIED or UNKNOWN), whatever the payload. */
  @Test
  void anyUnknownKindInvalidates() {
    qt().withExamples(200)
        .forAll(integers().all().assuming(k -> k < 1 || k > 3))
        .checkAssert(kind -> {
          ReplicaFixture fx = new ReplicaFixture();
          fx.installA();
          PoolFrame hb = ReplicaFixture.heartbeat(PRODUCER_A, fx.replicaA.installedSequence());
          var r = fx.replicaA.apply(ReplicaFixture.withKind(hb, kind), 20);
          assertThat(r.termination()).isEqualTo(kind == 0 ? ReplicaTermination.UNSPECIFIED_KIND
              : ReplicaTermination.UNKNOWN_KIND);
          assertThat(fx.ready(LANE_A)).isFalse();
        });
  }

  /**
   * Against a simple model (last revision + last pool set): each update is applied iff its revision is
   * larger (or first), a heartbeat iff equal with the same pools, otherwise rejected with no state change.
   */
  @Test
  void catalogFollowsTheRevisionModel() {
    List<ProducerIdentity> universe = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      universe.add(ReplicaFixture.producer(100 + i, (byte) (10 + i)));
    }
    qt().withExamples(300)
        .forAll(lists().of(integers().between(0, 6)).ofSizeBetween(1, 12),
            lists().of(integers().between(0, 15)).ofSizeBetween(12, 12))
        .checkAssert((revisions, masks) -> {
          CatalogView view = new CatalogView();
          Long modelRevision = null;
          Set<ProducerIdentity> modelPools = Set.of();
          for (int i = 0; i < revisions.size(); i++) {
            long rev = revisions.get(i);
            int mask = masks.get(i);
            Set<ProducerIdentity> pools = new HashSet<>();
            List<DescriptorWire> ds = new ArrayList<>();
            for (int b = 0; b < 4; b++) {
              if ((mask & (1 << b)) != 0) {
                pools.add(universe.get(b));
                ds.add(CatalogViewTest.descriptor(universe.get(b)));
              }
            }
            CatalogResult r = view.apply(CatalogUpdate.of(RELAY, rev, ds), i);
            if (modelRevision == null || rev > modelRevision) {
              assertThat(r).isInstanceOf(CatalogResult.Applied.class);
              Set<ProducerIdentity> added = new HashSet<>(pools);
              added.removeAll(modelPools);
              Set<ProducerIdentity> dropped = new HashSet<>(modelPools);
              dropped.removeAll(pools);
              assertThat(((CatalogResult.Applied) r).changes()).hasSize(added.size() + dropped.size());
              modelRevision = rev;
              modelPools = pools;
            } else if (rev == modelRevision && pools.equals(modelPools)) {
              assertThat(r).isEqualTo(new CatalogResult.Heartbeat(rev));
            } else {
              assertThat(r).isInstanceOf(CatalogResult.Rejected.class);
            }
            Set<ProducerIdentity> actual = new HashSet<>();
            view.pools().values().forEach(d -> actual.add(d.producer()));
            assertThat(actual).isEqualTo(modelPools);
            assertThat(view.revision()).contains(modelRevision);
          }
        });
  }
}
