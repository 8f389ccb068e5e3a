package dev.kvrelay.engine.recovery;


import static dev.kvrelay.engine.recovery.RecoveryFixture.MEMBER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.PUBLISHER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.WORKER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.dump;
import static dev.kvrelay.engine.recovery.RecoveryFixture.events;
import static dev.kvrelay.engine.recovery.RecoveryFixture.liveOnly;
import static dev.kvrelay.engine.recovery.RecoveryFixture.recoverable;
import static dev.kvrelay.engine.recovery.RecoveryFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.stats.PoolStats.QueryFailureKind;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import org.junit.jupiter.api.Test;

/** The event-plane fault decisions of {@link PoolRecovery#onPlaneFault} (see its class Javadoc), one each. */
class PoolRecoveryFaultTest {

  /** A recoverable source restored (empty dump at id 0) and live up to event 2. */
  private static RecoveryFixture liveAt2(ScriptedWorker[] worker) {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    f.sources(recoverable(MEMBER, PUBLISHER));
    worker[0] = f.worker(WORKER).thenAnswer(dump(0));
    f.live(stored(1));
    f.scheduler.advanceMs(10);
    f.live(stored(2));
    assertThat(f.appliedIds()).containsExactly(1L, 2L);
    return f;
  }

  private static void fault(RecoveryFixture f, EventPlaneFault fault) {
    f.recovery.onPlaneFault(fault);
    f.scheduler.runReady();
  }

  @Test
  void aGapProbesFromTheCursorAndFindingNothingAfterItIsASuccess() {
    ScriptedWorker[] w = new ScriptedWorker[1];
    RecoveryFixture f = liveAt2(w);
    w[0].thenAnswer(events(2));
    fault(f, new EventPlaneFault.SequenceGap(PUBLISHER, 2, 5));
    f.scheduler.advanceMs(1);
    assertThat(w[0].received()).hasSize(2);
    assertThat(w[0].received().get(1).request()).isEqualTo(WorkerKvQueryRequest.incremental(WORKER, 0, 3));
    assertThat(f.stats().queryFailures(QueryFailureKind.TOO_NEW)).isZero();
    assertThat(f.stats().faultRecoveries()).isEqualTo(1);
    assertThat(f.stats().planeFaults(EventPlaneFaultKind.SEQUENCE_GAP)).isEqualTo(1);
    f.live(stored(3));
    assertThat(f.appliedIds()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aGapProbeAppliesTheLostEventsTheWorkerStillHas() {
    ScriptedWorker[] w = new ScriptedWorker[1];
    RecoveryFixture f = liveAt2(w);
    w[0].thenAnswer(events(4, stored(3), stored(4)));
    fault(f, new EventPlaneFault.MessagesDropped(2, "pending limits"));
    f.scheduler.advanceMs(1);
    assertThat(f.appliedIds()).containsExactly(1L, 2L, 3L, 4L);
    f.live(stored(4));
    assertThat(f.stats().stale()).isEqualTo(1);
  }

  @Test
  void aRegressionRestoresInFull() {
    ScriptedWorker[] w = new ScriptedWorker[1];
    RecoveryFixture f = liveAt2(w);
    w[0].thenAnswer(dump(2, stored(MEMBER, 0, 1001, 5001)));
    fault(f, new EventPlaneFault.SequenceRegression(PUBLISHER, 3, 0));
    assertThat(w[0].received().get(1).request()).isEqualTo(WorkerKvQueryRequest.fullRestore(WORKER, 0));
    f.scheduler.advanceMs(10);
    assertThat(f.commands(PoolCommand.ReplaceRanks.class)).hasSize(2);
  }

  @Test
  void aNewPublisherWithoutACursorWaitsForItsFirstEvent() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    f.sources(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenNoAnswer();
    fault(f, new EventPlaneFault.NewPublisher(PUBLISHER, 0));
    assertThat(w.received()).isEmpty();
    assertThat(f.stats().planeFaults(EventPlaneFaultKind.NEW_PUBLISHER)).isEqualTo(1);
    assertThat(f.stats().faultRecoveries()).isZero();
  }

  @Test
  void aDisconnectMarksSourcesSuspectUntilTheyRecoveredAfterTheReconnect() {
    ScriptedWorker[] w = new ScriptedWorker[1];
    RecoveryFixture f = liveAt2(w);
    fault(f, new EventPlaneFault.Disconnected("nats://127.0.0.1:4222"));
    assertThat(f.stats().suspectSources()).isEqualTo(1);
    assertThat(f.stats().suspectMarks()).isEqualTo(1);
    assertThat(w[0].received()).hasSize(1);
    w[0].thenAnswer(events(2));
    fault(f, new EventPlaneFault.Reconnected("nats://127.0.0.1:4222"));
    assertThat(f.stats().suspectSources()).isEqualTo(1);
    f.scheduler.advanceMs(1);
    assertThat(w[0].received()).hasSize(2);
    assertThat(f.stats().suspectSources()).isZero();
  }

  @Test
  void aFaultDuringARecoveryProbesAgainAfterIt() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    f.sources(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenAnswer(dump(1, stored(MEMBER, 0, 1001, 5001))).thenAnswer(events(1));
    f.live(stored(1));
    fault(f, new EventPlaneFault.MessagesDropped(1, "pending limits"));
    assertThat(w.received()).hasSize(1);
    f.scheduler.advanceMs(10);
    f.scheduler.advanceMs(1);
    assertThat(w.received()).hasSize(2);
    assertThat(w.received().get(1).request()).isEqualTo(WorkerKvQueryRequest.incremental(WORKER, 0, 2));
  }

  @Test
  void aLiveOnlySourceIsResetOnAFault() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    f.sources(liveOnly(MEMBER, PUBLISHER));
    f.live(stored(1));
    int resets = f.commands(PoolCommand.ResetRank.class).size();
    fault(f, new EventPlaneFault.SequenceGap(PUBLISHER, 1, 3));
    assertThat(f.commands(PoolCommand.ResetRank.class)).hasSize(resets + 1);
    assertThat(f.stats().faultRecoveries()).isEqualTo(1);
  }

  @Test
  void aFaultOfAnUnboundPublisherRestoresItAtOnceWhenItIsBound() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    ScriptedWorker w = f.worker(WORKER).thenNoAnswer();
    fault(f, new EventPlaneFault.SequenceGap(PUBLISHER, 0, 4));
    f.sources(recoverable(MEMBER, PUBLISHER));
    assertThat(w.received()).singleElement()
        .satisfies(q -> assertThat(q.request()).isEqualTo(WorkerKvQueryRequest.fullRestore(WORKER, 0)));
  }
}
