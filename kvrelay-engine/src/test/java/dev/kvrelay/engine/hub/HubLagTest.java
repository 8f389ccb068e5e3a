package dev.kvrelay.engine.hub;

import static dev.kvrelay.engine.hub.HubFixture.drain;
import static dev.kvrelay.engine.hub.HubFixture.open;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.WireReplica;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Per-subscriber replica lag in {@code HubRegistry.stats().subscribers()} (issue 12 item 3). */
class HubLagTest {

  private static RelayEngineStats.SubscriberLag lagOf(HubFixture fx, String id) {
    List<RelayEngineStats.SubscriberLag> all = fx.registry.stats().subscribers();
    return all.stream().filter(l -> l.subscriberId().equals(id)).findFirst()
        .orElseThrow(() -> new AssertionError("no subscriber " + id + " in " + all));
  }

  @Test
  void aSubscriberThatIsNotReadFallsBehindByEveryPublishedDeltaAndADrainedOneShowsNoLag() throws Exception {
    HubFixture fx = new HubFixture(HubFixture.settings(100, 16_777_216L, 4));
    HubFixture.Pool a = fx.pool(43);
    long before = fx.registry.epochMicros();
    RelayStream<PoolFrame> slow = open(fx, a, "slow");
    RelayStream<PoolFrame> fast = open(fx, a, "fast");
    WireReplica rf = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(fast, rf);
    long snapshotSeq = rf.snapshotSequence;
    assertThat(lagOf(fx, "slow").pendingSnapshotChunks()).isEqualTo(rf.snapshotChunks);
    int published = 7;
    for (int i = 0; i < published; i++) {
      a.store(1, i + 1);
      a.publish();
      drain(fast, rf);
      RelayEngineStats.SubscriberLag slowLag = lagOf(fx, "slow");
      assertThat(slowLag.queuedFrames()).isEqualTo(i + 1);
      assertThat(slowLag.sequenceLag()).isEqualTo(i + 1);
    }
    assertThat(rf.deltas).isEqualTo(published);
    RelayEngineStats.SubscriberLag slowLag = lagOf(fx, "slow");
    assertThat(slowLag.pool()).isEqualTo(a.identity.poolId());
    assertThat(slowLag.stream()).isEqualTo("pool");
    assertThat(slowLag.deliveredSequence()).isEqualTo(snapshotSeq);
    assertThat(slowLag.publishedSequence()).isEqualTo(rf.sequence);
    assertThat(slowLag.queuedBytes()).isGreaterThan((long) published * 256);
    assertThat(slowLag.connectedSinceMicros()).isGreaterThanOrEqualTo(before);
    RelayEngineStats.SubscriberLag fastLag = lagOf(fx, "fast");
    assertThat(fastLag.queuedFrames()).isZero();
    assertThat(fastLag.sequenceLag()).isZero();
    assertThat(fastLag.queuedBytes()).isZero();
    assertThat(fastLag.pendingSnapshotChunks()).isZero();
    assertThat(fastLag.deliveredSequence()).isEqualTo(rf.sequence);

    WireReplica rs = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(slow, rs);
    assertThat(rs.sequence).isEqualTo(rf.sequence);
    slowLag = lagOf(fx, "slow");
    assertThat(slowLag.queuedFrames()).isZero();
    assertThat(slowLag.sequenceLag()).isZero();
    assertThat(slowLag.pendingSnapshotChunks()).isZero();

    slow.close();
    assertThat(fx.registry.stats().subscribers()).extracting(RelayEngineStats.SubscriberLag::subscriberId)
        .containsExactly("fast");
  }
}
