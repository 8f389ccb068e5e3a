package dev.kvrelay.engine.recovery;

import static dev.kvrelay.engine.recovery.RecoveryFixture.MEMBER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.PUBLISHER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.WORKER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.dump;
import static dev.kvrelay.engine.recovery.RecoveryFixture.liveOnly;
import static dev.kvrelay.engine.recovery.RecoveryFixture.recoverable;
import static dev.kvrelay.engine.recovery.RecoveryFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.stats.PoolStats.SourceRecoveryState;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link PoolStats.Recovery#sources()} (one entry per bound source) and {@link PoolStats.Recovery#backpressureWaits()}.
 */
class PoolRecoverySourceStatsTest {
  private static final MemberId OTHER = new MemberId(42, 1);
  /** Worker id 2^64 − 1: sorts after every other worker when compared unsigned. */
  private static final MemberId HIGH = new MemberId(-1L, 0);

  private static PoolStats.SourceRecovery only(RecoveryFixture f) {
    List<PoolStats.SourceRecovery> sources = f.stats().sources();
    assertThat(sources).hasSize(1);
    return sources.get(0);
  }

  private static PoolStats.SourceRecovery of(RecoveryFixture f, MemberId m) {
    return f.stats().sources().stream()
        .filter(s -> s.workerId() == m.workerId() && s.dpRank() == m.dpRank())
        .findFirst().orElseThrow(() -> new AssertionError("no source " + m + " in " + f.stats().sources()));
  }

  @Test
  void aRecoverableSourceGoesLiveThenRecoveringThenAwaitingTheBatchThenLiveAgain() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    f.sources(recoverable(MEMBER, PUBLISHER));
    PoolStats.SourceRecovery bound = only(f);
    assertThat(bound.workerId()).isEqualTo(WORKER);
    assertThat(bound.dpRank()).isZero();
    assertThat(bound.publisherId()).isEqualTo(PUBLISHER);
    assertThat(bound.recoverable()).isTrue();
    assertThat(bound.state()).isEqualTo(SourceRecoveryState.LIVE);
    assertThat(bound.lastEventAgeMs()).isEqualTo(-1);
    assertThat(bound.bufferedEvents()).isZero();

    f.worker(WORKER).thenAnswerAfter(Duration.ofMillis(1), dump(1));
    f.live(stored(2));
    f.live(stored(3));
    assertThat(only(f).state()).isEqualTo(SourceRecoveryState.RECOVERING);
    assertThat(only(f).bufferedEvents()).isEqualTo(2);
    assertThat(only(f).lastEventAgeMs()).isZero();

    f.scheduler.advanceMs(1); // the dump arrives; the batch window (5 ms quiet) is open
    assertThat(only(f).state()).isEqualTo(SourceRecoveryState.AWAITING_BATCH);
    assertThat(only(f).bufferedEvents()).isEqualTo(2);

    f.scheduler.advanceMs(5);
    assertThat(f.appliedIds()).containsExactly(2L, 3L);
    PoolStats.SourceRecovery live = only(f);
    assertThat(live.state()).isEqualTo(SourceRecoveryState.LIVE);
    assertThat(live.bufferedEvents()).isZero();
    assertThat(live.lastEventAgeMs()).isEqualTo(6);
    assertThat(live.resets()).isZero();

    // A gap: recovering again, then live once the worker answered.
    f.worker(WORKER).thenAnswer(RecoveryFixture.events(5, stored(4), stored(5)));
    f.live(stored(6));
    assertThat(only(f).lastEventAgeMs()).isZero();
    f.scheduler.advanceMs(1);
    assertThat(f.appliedIds()).containsExactly(2L, 3L, 4L, 5L, 6L);
    assertThat(only(f).state()).isEqualTo(SourceRecoveryState.LIVE);
  }

  @Test
  void resetsAreCountedOnTheSourceTheyReset() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(MEMBER, PUBLISHER), liveOnly(OTHER, 99));
    f.live(stored(1)); // first event of a live-only source: ResetRank, then applied
    assertThat(of(f, MEMBER).resets()).isEqualTo(1);
    assertThat(of(f, OTHER).resets()).isZero();
    f.live(stored(3)); // a gap: reset and re-learn
    assertThat(of(f, MEMBER).resets()).isEqualTo(2);
    f.live(99, stored(OTHER, 1, 1, 2));
    assertThat(of(f, OTHER).resets()).isEqualTo(1);
    assertThat(f.commands(PoolCommand.ResetRank.class)).hasSize(3);
    assertThat(f.stats().liveOnlyResets()).isEqualTo(3);
    assertThat(of(f, MEMBER).recoverable()).isFalse();
    assertThat(of(f, MEMBER).state()).isEqualTo(SourceRecoveryState.LIVE);
  }

  @Test
  void aResyncOfALiveOnlySourceCountsOneMoreResetOnIt() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(MEMBER, PUBLISHER));
    f.live(stored(1));
    f.recovery.resync(MEMBER, PUBLISHER);
    f.scheduler.runReady();
    assertThat(only(f).resets()).isEqualTo(2);
    f.recovery.resync(MEMBER, PUBLISHER + 1); // stale report: ignored
    f.scheduler.runReady();
    assertThat(only(f).resets()).isEqualTo(2);
  }

  @Test
  void sourcesAreOrderedByWorkerThenRankUnsignedAndARemovedSourceDisappears() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(HIGH, 3), liveOnly(MEMBER, PUBLISHER), liveOnly(OTHER, 99), liveOnly(new MemberId(42, 0), 4));
    assertThat(f.stats().sources()).extracting(PoolStats.SourceRecovery::workerId, PoolStats.SourceRecovery::dpRank)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(42L, 0), org.assertj.core.groups.Tuple.tuple(42L, 1),
            org.assertj.core.groups.Tuple.tuple(WORKER, 0), org.assertj.core.groups.Tuple.tuple(-1L, 0));
    assertThat(of(f, HIGH).toString()).contains("worker=18446744073709551615");
    f.sources(liveOnly(MEMBER, PUBLISHER));
    assertThat(f.stats().sources()).extracting(PoolStats.SourceRecovery::workerId).containsExactly(WORKER);
    assertThat(f.stats().lifecycleResets()).isEqualTo(3);
    f.sources();
    assertThat(f.stats().sources()).isEmpty();
  }

  @Test
  void aReplacedPublisherIsANewSourceAndItsLifecycleResetIsNotCountedOnIt() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(MEMBER, PUBLISHER));
    f.live(stored(1));
    assertThat(only(f).resets()).isEqualTo(1);
    f.rejectNext = 1; // the lifecycle reset of the old incarnation is refused: the member is fenced
    f.sources(liveOnly(MEMBER, PUBLISHER + 1));
    PoolStats.SourceRecovery fenced = only(f);
    assertThat(fenced.publisherId()).isEqualTo(PUBLISHER + 1);
    assertThat(fenced.state()).isEqualTo(SourceRecoveryState.FENCED);
    assertThat(fenced.resets()).isZero();
    assertThat(fenced.lastEventAgeMs()).isEqualTo(-1);
    f.live(PUBLISHER + 1, stored(1));
    assertThat(only(f).bufferedEvents()).isEqualTo(1);
    f.scheduler.advanceMs(200); // the retried reset succeeds; the buffer drains (first event: live-only reset)
    PoolStats.SourceRecovery live = only(f);
    assertThat(live.state()).isEqualTo(SourceRecoveryState.LIVE);
    assertThat(live.bufferedEvents()).isZero();
    assertThat(live.resets()).isEqualTo(1);
    assertThat(f.stats().lifecycleResets()).isEqualTo(1);
    assertThat(f.stats().liveOnlyResets()).isEqualTo(2);
  }

  @Test
  void aRejectedSourceIsShownRejectedAndASuspectOneSuspect() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(MEMBER, PUBLISHER), liveOnly(OTHER, 99));
    f.recovery.onPlaneFault(new EventPlaneFault.Disconnected("link down"));
    f.scheduler.runReady();
    assertThat(f.stats().sources()).allSatisfy(s -> assertThat(s.suspect()).isTrue());
    f.recovery.rejectSource(MEMBER, PUBLISHER);
    f.scheduler.runReady();
    assertThat(of(f, MEMBER).state()).isEqualTo(SourceRecoveryState.REJECTED);
    assertThat(of(f, OTHER).state()).isEqualTo(SourceRecoveryState.LIVE);
  }

  @Test
  void aDeliveryThreadWaitingOnAFullInboxIsCountedInTheStats() {
    ManualScheduler scheduler = new ManualScheduler();
    int[] applied = new int[1];
    PoolActor actor = PoolActor.start(CkfProducer.create(ActorHarness.config()), PoolActorConfig.DEFAULTS, scheduler,
        p -> true, f -> { });
    PoolRecovery recovery = PoolRecovery.onActor(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, actor, null,
        new Semaphore(16), scheduler, scheduler::now, TimeUnit.MILLISECONDS.toNanos(1), inline -> command -> {
          if (command instanceof PoolCommand.Apply) {
            applied[0]++;
          }
          return inline.apply(command);
        });
    recovery.updateSources(List.of(liveOnly(MEMBER, PUBLISHER)));
    scheduler.runReady();
    int inbox = 4096;
    EventEnvelope envelope = new EventEnvelope(PUBLISHER, 0, 0, EventTopics.KV_EVENTS);
    for (long id = 1; id <= inbox; id++) {
      recovery.onLiveEvent(envelope, stored(id));
    }
    // The actor's task does not run (the manual scheduler runs nothing until asked): every event stays in the inbox.
    assertThat(recovery.stats().backpressureWaits()).isZero();
    recovery.onLiveEvent(envelope, stored(inbox + 1)); // waits 1 ms for room that never comes, then drops
    PoolStats.Recovery s = recovery.stats();
    assertThat(s.backpressureWaits()).isEqualTo(1);
    assertThat(s.inboxOverflows()).isEqualTo(1);
    assertThat(s.applied()).isZero();
    scheduler.runReady();
    assertThat(applied[0]).isEqualTo(inbox);
    assertThat(recovery.stats().backpressureWaits()).isEqualTo(1);
    assertThat(recovery.stats().applied()).isEqualTo(inbox);
    recovery.close();
  }
}
