package dev.kvrelay.engine.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Recovery feeding a real {@code PoolActor} + {@code CkfProducer}, checked against a reference producer. */
class RecoveryEndToEndTest {
  private static final MemberId M = new MemberId(7, 0);

  @Test
  void finalWordsEqualAReferenceProducerFedTheWorkersTrueHistory() {
    ActorHarness h = new ActorHarness();
    TrueWorker w = new TrueWorker(M);
    ScriptedWorker sw = new ScriptedWorker().otherwiseAnswer(w::answer);
    h.plane.register(M.workerId(), sw);
    h.recovery.updateSources(List.of());
    h.recovery.updateSources(List.of(RecoveryFixture.recoverable(M, 99)));
    h.scheduler.runReady();

    RouterEvent e1 = w.storeRoot(1);
    RouterEvent e2 = w.storeRoot(2);
    RouterEvent e3 = w.storeRoot(3);
    h.live(99, e2); // first event: full restore (tree dump of 1, 2, 3 as of id 3)
    h.live(99, e1); // stale once the dump lands? buffered now; skipped in the drain
    h.scheduler.advanceMs(10);
    h.live(99, e3); // stale
    RouterEvent e4 = w.storeRoot(4);
    h.live(99, e4);
    RouterEvent e5 = w.publish(KvEventData.Removed.of(2));
    RouterEvent e6 = w.storeRoot(5);
    h.live(99, e6); // gap: incremental from 5
    RouterEvent e7 = w.storeRoot(6);
    h.live(99, e7);
    h.live(99, e5); // stale
    h.quiesce();

    CkfProducer ref = CkfProducer.create(ActorHarness.config());
    for (RouterEvent e : w.history) {
      dev.kvrelay.engine.actor.ActorFixture.feed(ref, e);
    }
    assertThat(h.producer.copyWords()).isEqualTo(ref.copyWords());
    assertThat(h.producer.mappingCount()).isEqualTo(5);
    PoolStats.Recovery s = h.recovery.stats();
    assertThat(s.treeDumps()).isEqualTo(1);
    assertThat(s.gaps()).isEqualTo(1);
    assertThat(s.stale()).isEqualTo(5);
    assertThat(h.faults).isEmpty();
    assertThat(sw.received()).hasSize(2);
  }
}
