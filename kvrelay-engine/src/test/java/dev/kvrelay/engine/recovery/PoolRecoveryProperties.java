package dev.kvrelay.engine.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Convergence: random live streams (drops, duplicates, reorders, delays) over real pool actors, with workers
 * answering from their true histories (and failing now and then): after a final reliably delivered event per
 * rank and quiescence, the actor's exact state equals a reference producer fed the true histories.
 */
class PoolRecoveryProperties {

  private static final int MEMBERS = 2;

  @Test
  void afterQuiescenceTheActorEqualsTheReferenceFedTheTrueHistory() {
    qt().withExamples(300).forAll(longs().all()).checkAssert(PoolRecoveryProperties::converge);
  }

  private static void converge(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    ActorHarness h = new ActorHarness();
    TrueWorker[] workers = new TrueWorker[MEMBERS];
    List<SourceBinding> bindings = new ArrayList<>();
    for (int i = 0; i < MEMBERS; i++) {
      MemberId m = new MemberId(100 + i, i);
      TrueWorker w = new TrueWorker(m);
      workers[i] = w;
      int failPercent = r.nextInt(3) * 10;
      h.plane.register(m.workerId(), new ScriptedWorker().otherwiseAnswer(q -> r.nextInt(100) < failPercent
          ? new WorkerKvQueryResponse.Error("flaky") : w.answer(q)));
      bindings.add(RecoveryFixture.recoverable(m, 1000 + i));
    }
    boolean initialWave = r.nextBoolean();
    if (!initialWave) {
      h.recovery.updateSources(List.of());
    }
    h.recovery.updateSources(bindings);
    h.scheduler.runReady();

    List<RouterEvent> held = new ArrayList<>();
    List<Integer> heldFrom = new ArrayList<>();
    int steps = 20 + r.nextInt(100);
    for (int step = 0; step < steps; step++) {
      int i = r.nextInt(MEMBERS);
      TrueWorker w = workers[i];
      RouterEvent e = nextEvent(w, r);
      int fate = r.nextInt(10);
      if (fate < 6) {
        h.live(1000 + i, e);
      } else if (fate == 6) {
        // dropped
      } else if (fate == 7) {
        h.live(1000 + i, e);
        h.live(1000 + i, e);
      } else {
        held.add(e);
        heldFrom.add(i);
      }
      if (!held.isEmpty() && r.nextInt(4) == 0) {
        int k = r.nextInt(held.size());
        h.live(1000 + heldFrom.remove(k), held.remove(k));
      }
      if (r.nextInt(3) == 0) {
        h.scheduler.advanceMs(r.nextInt(300));
      }
    }
    for (int k = 0; k < held.size(); k++) {
      h.live(1000 + heldFrom.get(k), held.get(k));
    }
    for (int i = 0; i < MEMBERS; i++) {
      h.live(1000 + i, workers[i].storeRoot(999_999));
    }
    h.quiesce();

    CkfProducer ref = CkfProducer.create(ActorHarness.config());
    Set<Long> resident = new HashSet<>();
    for (TrueWorker w : workers) {
      for (RouterEvent e : w.history) {
        dev.kvrelay.engine.actor.ActorFixture.feed(ref, e);
      }
    }
    for (TrueWorker w : workers) {
      for (RouterEvent e : w.history) {
        if (e.data() instanceof KvEventData.Stored s) {
          resident.add(s.blocks().get(0).tokensHash());
        }
      }
    }
    assertThat(h.producer.mappingCount()).as("mappings").isEqualTo(ref.mappingCount());
    assertThat(h.producer.residentCount()).as("resident").isEqualTo(ref.residentCount());
    for (long t : resident) {
      if (ref.contains(t)) {
        assertThat(h.producer.contains(t)).as("contains %s", t).isTrue();
      }
    }
    assertThat(h.faults).isEmpty();
  }

  private static RouterEvent nextEvent(TrueWorker w, SplittableRandom r) {
    int k = r.nextInt(20);
    if (k == 0) {
      return w.publish(KvEventData.Cleared.INSTANCE);
    }
    if (k < 6) {
      return w.publish(KvEventData.Removed.of(1 + r.nextInt(16)));
    }
    return w.storeRoot(1 + r.nextInt(16));
  }
}
