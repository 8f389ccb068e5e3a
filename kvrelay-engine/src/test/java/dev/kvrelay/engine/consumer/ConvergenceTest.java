package dev.kvrelay.engine.consumer;

import static dev.kvrelay.engine.consumer.ReplicaFixture.LANE_A;
import static dev.kvrelay.engine.consumer.ReplicaFixture.PRODUCER_A;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.ckf.producer.NoPublication;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Producer → CBI1 frames → PoolReplica: the lane's words equal the producer's after every publication. */
class ConvergenceTest {

  @Test
  void replicaConvergesToTheProducerThroughSnapshotDeltasAndHeartbeats() {
    ReplicaFixture fx = new ReplicaFixture();
    fx.bindA(1);
    for (PoolFrame f : ReplicaFixture.snapshotFrames(fx.producerA, PRODUCER_A, 1)) {
      assertThat(fx.replicaA.apply(f, 0).invalidated()).isFalse();
    }
    SplittableRandom rnd = new SplittableRandom(42);
    long now = 0;
    int deltas = 0;
    for (int step = 0; step < 300; step++) {
      now += 1_000;
      if (rnd.nextInt(4) == 0) {
        fx.producerA.removeWorker(1);
      } else {
        fx.store(fx.producerA, 1 + rnd.nextInt(6));
      }
      CkfPublication p = fx.producerA.drain();
      if (p instanceof CkfDelta d) {
        PoolFrame frame = PoolFrame.of(ReplicaFixture.RELAY, PRODUCER_A, d.baseSequence(), d.sequence(), now,
            PoolFrame.Kind.DELTA,
            ReplicaFixture.encodeDelta(PRODUCER_A, d.baseSequence(), d.sequence(), d.buckets(), d.words()));
        assertThat(fx.replicaA.apply(frame, now).outcome()).isEqualTo(PoolReplica.Outcome.DELTA_APPLIED);
        deltas++;
      } else {
        assertThat(p).isNotInstanceOf(CkfSnapshot.class);
        assertThat(p).isIn(NoPublication.UNCHANGED, NoPublication.NOTHING_PENDING);
        assertThat(fx.replicaA.apply(ReplicaFixture.heartbeat(PRODUCER_A, fx.producerA.lastSequence()), now)
            .outcome()).isEqualTo(PoolReplica.Outcome.HEARTBEAT_CONFIRMED);
      }
      assertThat(fx.laneWords(LANE_A)).containsExactly(fx.producerA.copyWords());
      assertThat(fx.replicaA.installedSequence()).isEqualTo(fx.producerA.lastSequence());
      assertThat(fx.replicaA.isUsable(now)).isTrue();
    }
    assertThat(deltas).isGreaterThan(100);
  }
}
