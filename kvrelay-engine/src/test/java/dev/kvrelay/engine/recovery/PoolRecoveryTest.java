package dev.kvrelay.engine.recovery;

import static dev.kvrelay.engine.recovery.RecoveryFixture.MEMBER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.PUBLISHER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.WORKER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.cleared;
import static dev.kvrelay.engine.recovery.RecoveryFixture.dump;
import static dev.kvrelay.engine.recovery.RecoveryFixture.events;
import static dev.kvrelay.engine.recovery.RecoveryFixture.liveOnly;
import static dev.kvrelay.engine.recovery.RecoveryFixture.recoverable;
import static dev.kvrelay.engine.recovery.RecoveryFixture.removed;
import static dev.kvrelay.engine.recovery.RecoveryFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.stats.PoolStats.QueryFailureKind;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The resume algorithm of runtime-inputs.md §6.3 and the decisions of producer.md §3.6. */
class PoolRecoveryTest {

  private static final MemberId OTHER = new MemberId(42, 1);

  /** A fixture whose single source has been bound after the first (empty) update, so no initial wave. */
  private static RecoveryFixture bound(SourceBinding b) {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    f.sources(b);
    return f;
  }

  @Test
  void settingsFromConfigUseTheAttemptTimeoutAndTheSpecConstants() throws Exception {
    RecoverySettings s = RecoverySettings.from(RelayEngineConfig.builder().dcId("dc-a").build());
    assertThat(s).isEqualTo(new RecoverySettings(30_000, 8, 200, 1024, 5));
    assertThat(RecoverySettings.from(RelayEngineConfig.builder().dcId("dc-a").recoveryAttemptTimeoutMs(1234).build())
        .attemptTimeoutMs()).isEqualTo(1234);
  }

  @Test
  void firstLiveEventBuffersItAndStartsAFullRestore() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenNoAnswer();
    f.live(stored(7));
    assertThat(w.received()).hasSize(1);
    WorkerKvQueryRequest r = w.received().get(0).request();
    assertThat(r).isEqualTo(WorkerKvQueryRequest.fullRestore(WORKER, 0));
    assertThat(r.startEventId()).isEmpty();
    assertThat(r.supportsTreeDumpFailed()).isTrue();
    assertThat(f.commands).isEmpty();
    assertThat(f.stats().buffered()).isEqualTo(1);
  }

  @Test
  void sourceBoundAfterItsEventsArrivedRestoresAtOnceWithoutWaitingForAnotherEvent() {
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    ScriptedWorker w = f.worker(WORKER).thenNoAnswer();
    f.live(stored(7)); // before the advertisement: dropped as unknown publisher
    assertThat(f.stats().unknownPublisher()).isEqualTo(1);
    assertThat(w.received()).isEmpty();
    f.sources(recoverable(MEMBER, PUBLISHER));
    assertThat(w.received()).hasSize(1);
    assertThat(w.received().get(0).request()).isEqualTo(WorkerKvQueryRequest.fullRestore(WORKER, 0));
    // A source bound later whose publisher was never seen waits for its first event, as before.
    ScriptedWorker other = f.worker(OTHER.workerId()).thenNoAnswer();
    f.sources(recoverable(MEMBER, PUBLISHER), recoverable(OTHER, 99));
    assertThat(other.received()).isEmpty();
  }

  @Test
  void decisionQueryEndpointIsThePerRankNameOnTheExactTarget() {
    RecoveryFixture f = bound(recoverable(new MemberId(WORKER, 3), PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenNoAnswer();
    f.live(stored(new MemberId(WORKER, 3), 1, 1, 2));
    assertThat(w.received().get(0).endpoint())
        .isEqualTo(new DynamoEndpointId("dynamo", "backend", "worker_kv_indexer_query_dp3"));
  }

  @Test
  void treeDumpBecomesOneRankReplacementAfterTheQuietWindowThenTheBufferDrains() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).thenAnswer(dump(5, stored(MEMBER, 0, 11, 21), stored(MEMBER, 1, 12, 22)));
    f.live(stored(5));
    f.live(stored(6));
    f.live(stored(7));
    f.scheduler.advance(0);
    assertThat(f.commands).isEmpty();
    f.scheduler.advanceMs(4);
    assertThat(f.commands).isEmpty();
    f.scheduler.advanceMs(1);
    List<PoolCommand.ReplaceRanks> rr = f.commands(PoolCommand.ReplaceRanks.class);
    assertThat(rr).hasSize(1);
    assertThat(rr.get(0).replacements()).singleElement().satisfies(r -> {
      assertThat(r.member()).isEqualTo(MEMBER);
      assertThat(r.mappingCount()).isEqualTo(2);
    });
    assertThat(f.commands.get(0)).isInstanceOf(PoolCommand.ReplaceRanks.class);
    assertThat(f.appliedIds()).containsExactly(6L, 7L);
    assertThat(f.stats().stale()).isEqualTo(1);
    f.live(stored(8));
    assertThat(f.appliedIds()).containsExactly(6L, 7L, 8L);
    assertThat(f.stats().treeDumps()).isEqualTo(1);
    assertThat(f.stats().replacements()).isEqualTo(1);
  }

  @Test
  void contiguousEventsAreAppliedAndStaleOnesDropped() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).thenAnswer(dump(1));
    f.live(stored(2));
    f.scheduler.advanceMs(5);
    f.live(stored(3));
    f.live(stored(3));
    f.live(stored(1));
    f.live(stored(4));
    assertThat(f.appliedIds()).containsExactly(2L, 3L, 4L);
    assertThat(f.stats().stale()).isEqualTo(2);
    PoolCommand.Apply a = f.commands(PoolCommand.Apply.class).get(0);
    assertThat(a.member()).isEqualTo(MEMBER);
    assertThat(a.publisherId()).isEqualTo(PUBLISHER);
  }

  @Test
  void gapStartsIncrementalRecoveryFromCursorPlusOneAndEventsAreAppliedInOrder() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenAnswer(dump(1)).thenAnswerAfter(Duration.ofMillis(10),
        events(5, stored(2), stored(3), stored(4), stored(5)));
    f.live(stored(2));
    f.scheduler.advanceMs(5);
    f.live(stored(6));
    assertThat(f.stats().gaps()).isEqualTo(1);
    assertThat(w.received().get(1).request()).isEqualTo(WorkerKvQueryRequest.incremental(WORKER, 0, 3));
    f.live(stored(7));
    f.scheduler.advanceMs(10);
    assertThat(f.appliedIds()).containsExactly(2L, 3L, 4L, 5L, 6L, 7L);
  }

  @Test
  void aHoleInTheDrainStartsAnotherRecovery() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenAnswer(dump(3)).thenAnswer(events(7, stored(5), stored(6), stored(7)));
    f.live(stored(1));
    f.live(stored(4));
    f.live(stored(8));
    f.scheduler.advanceMs(5);
    assertThat(w.received().get(1).request()).isEqualTo(WorkerKvQueryRequest.incremental(WORKER, 0, 5));
    f.scheduler.advance(0);
    assertThat(f.appliedIds()).containsExactly(4L, 5L, 6L, 7L, 8L);
  }

  @Test
  void bufferOverflowDropsTheOldestAndCountsIt() {
    RecoveryFixture f = new RecoveryFixture(new RecoverySettings(30_000, 8, 200, 3, 5), true, 16);
    f.sources();
    f.sources(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenAnswerAfter(Duration.ofMillis(1), dump(0))
        .thenAnswer(events(2, stored(1), stored(2)));
    for (long id = 1; id <= 5; id++) {
      f.live(stored(id));
    }
    assertThat(f.stats().bufferOverflows()).isEqualTo(2);
    f.scheduler.advanceMs(10);
    assertThat(w.received().get(1).request()).isEqualTo(WorkerKvQueryRequest.incremental(WORKER, 0, 1));
    // Oldest (1, 2) dropped: the drain found a hole at 3 and recovered 1..2 from the worker.
    assertThat(f.appliedIds()).containsExactly(1L, 2L, 3L, 4L, 5L);
  }

  @Test
  void unknownPublisherAndMemberMismatchAreDroppedAndCounted() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).thenNoAnswer();
    f.live(999, stored(1));
    f.live(PUBLISHER, stored(OTHER, 1, 1, 2));
    assertThat(f.stats().unknownPublisher()).isEqualTo(1);
    assertThat(f.stats().memberMismatch()).isEqualTo(1);
    assertThat(f.plane.queries).isZero();
    assertThat(f.commands).isEmpty();
  }

  @Test
  void decisionTreeDumpFailedKeepsStateAndRetriesThenResetsTheRankDegraded() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER)
        .otherwiseAnswer(r -> new WorkerKvQueryResponse.TreeDumpFailed(3, "busy"));
    f.live(stored(4));
    f.scheduler.advanceMs(200 + 400 + 800 + 1600 + 3200 + 6400 + 12800 + 25600 - 1);
    assertThat(w.received()).hasSize(8);
    assertThat(f.commands).isEmpty();
    f.scheduler.advanceMs(1);
    assertThat(w.received()).hasSize(9);
    assertThat(f.commands).containsExactly(new PoolCommand.ResetRank(MEMBER, true));
    PoolStats.Recovery s = f.stats();
    assertThat(s.queryFailures(QueryFailureKind.TREE_DUMP_FAILED)).isEqualTo(9);
    assertThat(s.retries()).isEqualTo(8);
    assertThat(s.degradedResets()).isEqualTo(1);
    assertThat(s.exhausted()).isEqualTo(1);
    assertThat(s.discarded()).isEqualTo(1);
  }

  @Test
  void decisionRetryBackoffDoublesFrom200ms() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).otherwiseAnswer(r -> new WorkerKvQueryResponse.Error("boom"));
    f.live(stored(1));
    long[] expected = {200, 400, 800, 1600};
    for (int i = 0; i < expected.length; i++) {
      int before = w.received().size();
      f.scheduler.advanceMs(expected[i] - 1);
      assertThat(w.received()).as("retry %d not before %d ms", i + 1, expected[i]).hasSize(before);
      f.scheduler.advanceMs(1);
      assertThat(w.received()).as("retry %d at %d ms", i + 1, expected[i]).hasSize(before + 1);
    }
    assertThat(new RecoverySettings(30_000, 8, 200, 1024, 5).backoffMs(8)).isEqualTo(25_600);
  }

  @Test
  void decisionExhaustionOfAnyFailureResetsDegradedAndTheNextEventStartsAFreshFullRestore() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).otherwiseAnswer(r -> new WorkerKvQueryResponse.TooNew(
        r.startEventId(), r.endEventId(), 0));
    f.live(stored(1));
    f.scheduler.advanceMs(60_000);
    assertThat(f.commands).containsExactly(new PoolCommand.ResetRank(MEMBER, true));
    w.otherwiseAnswer(r -> dump(10));
    f.live(stored(11));
    assertThat(w.received().get(w.received().size() - 1).request()).isEqualTo(WorkerKvQueryRequest.fullRestore(WORKER, 0));
    f.scheduler.advanceMs(5);
    assertThat(f.appliedIds()).containsExactly(11L);
  }

  @Test
  void decisionAnyResetScopeIsWholeRank() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).thenAnswer(new WorkerKvQueryResponse.TreeDump(List.of(stored(MEMBER, 0, 1, 2)), 0, "device_only"));
    f.live(stored(1));
    f.scheduler.advanceMs(5);
    assertThat(f.commands(PoolCommand.ReplaceRanks.class)).hasSize(1);
    assertThat(f.appliedIds()).containsExactly(1L);
  }

  @Test
  void invalidTreeDumpIsAFailedAttempt() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER)
        .thenAnswer(dump(2, stored(MEMBER, 0, 1, 2), removed(MEMBER, 1, 1)))
        .thenAnswer(dump(2, stored(OTHER, 0, 1, 2)))
        .thenAnswer(dump(2, new dev.kvrelay.spi.eventplane.RouterEvent(WORKER,
            dev.kvrelay.spi.eventplane.StorageTier.DEVICE, dev.kvrelay.spi.eventplane.ResidencyDomain.WORKER, 0, 0,
            new dev.kvrelay.spi.eventplane.KvEventData.Stored(OptionalLong.of(77), OptionalLong.empty(),
                List.of(dev.kvrelay.spi.eventplane.StoredBlock.of(1, 2))))))
        .thenAnswer(dump(2, stored(MEMBER, 0, 1, 2)));
    f.live(stored(3));
    f.scheduler.advanceMs(200 + 400 + 800 + 5);
    assertThat(w.received()).hasSize(4);
    assertThat(f.stats().invalidTreeDumps()).isEqualTo(3);
    assertThat(f.stats().queryFailures(QueryFailureKind.INVALID_TREE_DUMP)).isEqualTo(3);
    assertThat(f.commands(PoolCommand.ReplaceRanks.class)).hasSize(1);
    assertThat(f.appliedIds()).containsExactly(3L);
  }

  @Test
  void silentWorkerTimesOutAfterTheAttemptTimeoutAndIsRetried() {
    RecoveryFixture f = new RecoveryFixture(new RecoverySettings(1_000, 8, 200, 1024, 5), true, 1);
    f.sources();
    f.sources(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenNoAnswer().thenAnswer(dump(0));
    f.live(stored(1));
    assertThat(f.permits.availablePermits()).isZero();
    f.scheduler.advanceMs(999);
    assertThat(f.stats().timeouts()).isZero();
    f.scheduler.advanceMs(1);
    assertThat(f.stats().timeouts()).isEqualTo(1);
    assertThat(f.stats().queryFailures(QueryFailureKind.TIMEOUT)).isEqualTo(1);
    assertThat(f.permits.availablePermits()).isEqualTo(1);
    f.scheduler.advanceMs(205);
    assertThat(w.received()).hasSize(2);
    assertThat(f.appliedIds()).containsExactly(1L);
    assertThat(f.permits.availablePermits()).isEqualTo(1);
  }

  @Test
  void refusalAndUnreachableAreFailedAttemptsByKind() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).thenRefuse("Server overloaded: x").thenAnswer(dump(0));
    f.live(stored(1));
    f.scheduler.advanceMs(300);
    assertThat(f.stats().queryFailures(QueryFailureKind.REJECTED)).isEqualTo(1);
    assertThat(f.appliedIds()).containsExactly(1L);

    RecoveryFixture g = bound(recoverable(MEMBER, PUBLISHER));
    g.live(stored(1));
    g.scheduler.advance(0);
    assertThat(g.stats().queryFailures(QueryFailureKind.UNREACHABLE)).isEqualTo(1);
  }

  @Test
  void liveOnlySourceResetsTheRankOnTheFirstEventAndOnAGapThenApplies() {
    RecoveryFixture f = bound(liveOnly(MEMBER, PUBLISHER));
    f.live(stored(5));
    f.live(stored(6));
    f.live(stored(9));
    assertThat(f.commands).containsExactly(
        new PoolCommand.ResetRank(MEMBER, false), new PoolCommand.Apply(MEMBER, PUBLISHER, stored(5)),
        new PoolCommand.Apply(MEMBER, PUBLISHER, stored(6)),
        new PoolCommand.ResetRank(MEMBER, false), new PoolCommand.Apply(MEMBER, PUBLISHER, stored(9)));
    assertThat(f.stats().liveOnlyResets()).isEqualTo(2);
    assertThat(f.plane.queries).isZero();
  }

  @Test
  void aStepThatThrowsIsCountedAndTheTaskGoesOnWithTheNextEvent() {
    RecoveryFixture f = bound(liveOnly(MEMBER, PUBLISHER));
    f.live(stored(5));
    f.throwNext = 1;
    f.live(stored(6)); // its Apply throws: the step fails, the event is lost
    assertThat(f.stats().taskFailures()).isEqualTo(1);
    f.live(stored(7)); // the task still runs: the gap 5 -> 7 resets the live-only rank
    assertThat(f.commands).containsExactly(
        new PoolCommand.ResetRank(MEMBER, false), new PoolCommand.Apply(MEMBER, PUBLISHER, stored(5)),
        new PoolCommand.ResetRank(MEMBER, false), new PoolCommand.Apply(MEMBER, PUBLISHER, stored(7)));
    assertThat(f.stats().gaps()).isEqualTo(1);
    assertThat(f.stats().taskFailures()).isEqualTo(1);
  }

  @Test
  void withoutARequestPlaneClientEverySourceIsLiveOnly() {
    RecoveryFixture f = new RecoveryFixture(RecoverySettings.DEFAULTS, false, 16);
    f.sources(recoverable(MEMBER, PUBLISHER));
    f.live(stored(1));
    assertThat(f.commands).containsExactly(
        new PoolCommand.ResetRank(MEMBER, false), new PoolCommand.Apply(MEMBER, PUBLISHER, stored(1)));
    assertThat(f.stats().liveOnlyResets()).isEqualTo(1);
    assertThat(f.stats().queries()).isZero();
  }

  @Test
  void anActorThatClosedRefusesForGoodSoNothingIsHeldAndTheTaskDoesNotSpin() {
    // A closed actor "has room" (roomFor answers true so the caller fails fast): holding its refusals would re-run
    // the task for ever. Both refusals of a live-only source's first event (the reset, then the Apply) are final.
    MemberId a = new MemberId(1, 0);
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(a, 10));
    f.actorClosed = true;
    f.live(10, stored(a, 1, 1, 1)); // the manual scheduler fails with "task storm" if the task spins
    f.live(10, stored(a, 2, 2, 2));
    f.scheduler.advanceMs(5);
    assertThat(f.commands).isEmpty();
    assertThat(f.stats().submitRejected()).isEqualTo(2);
    assertThat(f.stats().sources()).singleElement().satisfies(s -> assertThat(s.bufferedEvents()).isZero());
  }

  @Test
  void decisionLiveClearedIsABarrierThatResetsTheRankAndInvalidatesTheInFlightRecovery() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).thenAnswerAfter(Duration.ofMillis(50), dump(3, stored(MEMBER, 0, 1, 2)));
    f.live(stored(4));
    f.live(cleared(MEMBER, 6));
    assertThat(f.commands).containsExactly(new PoolCommand.Apply(MEMBER, PUBLISHER, cleared(MEMBER, 6)));
    f.live(stored(7));
    f.scheduler.advanceMs(100);
    assertThat(f.appliedIds()).containsExactly(6L, 7L);
    assertThat(f.commands(PoolCommand.ReplaceRanks.class)).isEmpty();
    PoolStats.Recovery s = f.stats();
    assertThat(s.barriers()).isEqualTo(1);
    assertThat(s.lateAnswers()).isEqualTo(1);
    assertThat(s.discarded()).isEqualTo(1);
    assertThat(f.permits.availablePermits()).isEqualTo(16);
  }

  @Test
  void lifecycleRemovedReplacedAndAmbiguousSourcesAreResetBeforeANewIncarnation() {
    MemberId a = new MemberId(1, 0);
    MemberId b = new MemberId(2, 0);
    MemberId c = new MemberId(3, 0);
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(a, 10), liveOnly(b, 20), liveOnly(c, 30));
    f.live(10, stored(a, 1, 1, 1));
    f.commands.clear();
    f.sources(liveOnly(a, 11), liveOnly(c, 30), liveOnly(c, 31));
    assertThat(f.commands).containsExactlyInAnyOrder(new PoolCommand.ResetRank(a, false),
        new PoolCommand.ResetRank(b, false), new PoolCommand.ResetRank(c, false));
    assertThat(f.stats().lifecycleResets()).isEqualTo(3);
    f.commands.clear();
    f.live(10, stored(a, 2, 1, 1));
    f.live(30, stored(c, 1, 1, 1));
    f.live(20, stored(b, 1, 1, 1));
    assertThat(f.commands).isEmpty();
    assertThat(f.stats().unknownPublisher()).isEqualTo(3);
    f.live(11, stored(a, 1, 5, 5));
    assertThat(f.commands).containsExactly(
        new PoolCommand.ResetRank(a, false), new PoolCommand.Apply(a, 11, stored(a, 1, 5, 5)));
  }

  @Test
  void aBarrierReFedFromTheBufferKeepsTheEventsBufferedAfterIt() {
    MemberId a = new MemberId(1, 0);
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(a, 10));
    f.rejectNext = 1;
    f.sources(liveOnly(a, 11)); // the lifecycle reset is refused: the member is fenced and buffers
    f.live(11, stored(a, 1, 1, 1));
    f.live(11, cleared(a, 2));
    f.live(11, stored(a, 3, 3, 3));
    f.live(11, stored(a, 4, 4, 4));
    f.scheduler.advanceMs(200); // the retried reset succeeds and the buffer is re-fed
    assertThat(f.commands(PoolCommand.Apply.class)).extracting(c -> ((PoolCommand.Apply) c).event().eventId())
        .containsExactly(1L, 2L, 3L, 4L);
    assertThat(f.stats().discarded()).isZero();
  }

  @Test
  void anEventsAnswerThatCannotCloseTheGapBacksOffInsteadOfRequeryingAtOnce() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenAnswer(dump(1)).otherwiseAnswer(r -> events(1));
    f.live(stored(2));
    f.scheduler.advanceMs(5);
    f.live(stored(4)); // gap: 3 is missing, but the worker's log ends at 1 (e.g. another incarnation)
    f.scheduler.advance(0);
    int afterGap = w.received().size();
    assertThat(afterGap).isEqualTo(2);
    assertThat(f.stats().queryFailures(QueryFailureKind.TOO_NEW)).isEqualTo(1);
    f.scheduler.advanceMs(150);
    assertThat(w.received()).as("no retry before the 200 ms backoff").hasSize(afterGap);
    f.scheduler.advanceMs(100);
    assertThat(w.received()).hasSize(afterGap + 1);
  }

  @Test
  void rejectedSourceIsIneligibleUntilItsPublisherChanges() {
    MemberId a = new MemberId(1, 0);
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(a, 10));
    f.live(10, stored(a, 1, 1, 1));
    f.recovery.rejectSource(a, 99); // stale report (another publisher): ignored
    f.scheduler.runReady();
    f.live(10, stored(a, 2, 2, 2));
    f.recovery.rejectSource(a, 10);
    f.scheduler.runReady();
    f.live(10, stored(a, 3, 3, 3));
    f.live(10, stored(a, 4, 4, 4));
    assertThat(f.commands(PoolCommand.Apply.class)).extracting(c -> ((PoolCommand.Apply) c).event().eventId())
        .containsExactly(1L, 2L);
    assertThat(f.stats().rejectedSources()).isEqualTo(1);
    assertThat(f.stats().rejectedSourceEvents()).isEqualTo(2);
    f.sources(liveOnly(a, 11)); // a new incarnation is eligible again (after the lifecycle reset)
    f.live(11, stored(a, 1, 5, 5));
    assertThat(f.commands(PoolCommand.Apply.class)).extracting(c -> ((PoolCommand.Apply) c).event().eventId())
        .containsExactly(1L, 2L, 1L);
  }

  @Test
  void resourceFailureResyncRestoresARecoverableSourceInFull() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenAnswer(dump(1)).thenAnswer(dump(2, stored(MEMBER, 0, 11, 21)));
    f.live(stored(2));
    f.scheduler.advanceMs(5);
    assertThat(w.received()).hasSize(1);
    f.recovery.resync(MEMBER, PUBLISHER + 1); // stale: another publisher
    f.scheduler.runReady();
    assertThat(w.received()).hasSize(1);
    f.recovery.resync(MEMBER, PUBLISHER);
    f.scheduler.advanceMs(10);
    assertThat(w.received()).hasSize(2);
    assertThat(w.received().get(1).request()).isEqualTo(WorkerKvQueryRequest.fullRestore(WORKER, 0));
    assertThat(f.commands(PoolCommand.ReplaceRanks.class)).hasSize(2);
    assertThat(f.stats().resyncs()).isEqualTo(1);
  }

  @Test
  void rejectedLifecycleResetFencesTheMemberUntilARetriedResetSucceeds() {
    MemberId a = new MemberId(1, 0);
    RecoveryFixture f = new RecoveryFixture();
    f.sources(liveOnly(a, 10));
    f.rejectNext = 1;
    f.sources(liveOnly(a, 11));
    f.live(11, stored(a, 1, 1, 1));
    assertThat(f.commands).isEmpty();
    assertThat(f.stats().buffered()).isEqualTo(1);
    f.scheduler.advanceMs(200);
    assertThat(f.commands).containsExactly(new PoolCommand.ResetRank(a, false),
        new PoolCommand.ResetRank(a, false), new PoolCommand.Apply(a, 11, stored(a, 1, 1, 1)));
    assertThat(f.stats().lifecycleResets()).isEqualTo(1);
  }

  @Test
  void initialWaveStartsAtOnceAndIsHeldUntilEveryRankCompletes() {
    MemberId a = new MemberId(1, 0);
    MemberId b = new MemberId(2, 0);
    RecoveryFixture f = new RecoveryFixture();
    ScriptedWorker wa = f.worker(1).thenAnswer(dump(0, stored(a, 0, 1, 1)));
    ScriptedWorker wb = f.worker(2).thenAnswerAfter(Duration.ofMillis(100), dump(0, stored(b, 0, 2, 2)));
    f.sources(recoverable(a, 10), recoverable(b, 20));
    assertThat(wa.received()).hasSize(1);
    assertThat(wb.received()).hasSize(1);
    f.scheduler.advanceMs(99);
    assertThat(f.commands).isEmpty();
    f.scheduler.advanceMs(1 + 5);
    List<PoolCommand.ReplaceRanks> rr = f.commands(PoolCommand.ReplaceRanks.class);
    assertThat(rr).hasSize(1);
    assertThat(rr.get(0).replacements()).extracting(r -> r.member()).containsExactlyInAnyOrder(a, b);
  }

  @Test
  void initialWaveIsReleasedAtTheAttemptTimeoutDeadline() {
    MemberId a = new MemberId(1, 0);
    MemberId b = new MemberId(2, 0);
    RecoveryFixture f = new RecoveryFixture(new RecoverySettings(1_000, 8, 200, 1024, 5), true, 16);
    f.worker(1).thenAnswer(dump(0, stored(a, 0, 1, 1)));
    f.worker(2).otherwiseAnswer(r -> new WorkerKvQueryResponse.Error("down"));
    f.sources(recoverable(a, 10), recoverable(b, 20));
    f.scheduler.advanceMs(999);
    assertThat(f.commands).isEmpty();
    f.scheduler.advanceMs(1 + 5);
    List<PoolCommand.ReplaceRanks> rr = f.commands(PoolCommand.ReplaceRanks.class);
    assertThat(rr).hasSize(1);
    assertThat(rr.get(0).replacements()).extracting(r -> r.member()).containsExactly(a);
  }

  @Test
  void aBarrierCompletesAnInitialWaveRankSoTheOthersAreNotHeldToTheDeadline() {
    MemberId a = new MemberId(1, 0);
    MemberId b = new MemberId(2, 0);
    RecoveryFixture f = new RecoveryFixture();
    f.worker(1).thenAnswer(dump(0, stored(a, 0, 1, 1)));
    f.worker(2).thenNoAnswer();
    f.sources(recoverable(a, 10), recoverable(b, 20));
    f.live(20, cleared(b, 4));
    f.scheduler.advanceMs(5);
    assertThat(f.commands(PoolCommand.ReplaceRanks.class)).singleElement()
        .satisfies(rr -> assertThat(rr.replacements()).extracting(r -> r.member()).containsExactly(a));
  }

  @Test
  void laterDumpsAreBatchedOverTheQuietWindow() {
    MemberId a = new MemberId(1, 0);
    MemberId b = new MemberId(2, 0);
    RecoveryFixture f = new RecoveryFixture();
    f.sources();
    f.sources(recoverable(a, 10), recoverable(b, 20));
    f.worker(1).thenAnswer(dump(0));
    f.worker(2).thenAnswerAfter(Duration.ofMillis(3), dump(0));
    f.live(10, stored(a, 1, 1, 1));
    f.live(20, stored(b, 1, 1, 1));
    f.scheduler.advanceMs(7);
    assertThat(f.commands).isEmpty();
    f.scheduler.advanceMs(1);
    List<PoolCommand.ReplaceRanks> rr = f.commands(PoolCommand.ReplaceRanks.class);
    assertThat(rr).hasSize(1);
    assertThat(rr.get(0).replacements()).hasSize(2);
  }

  @Test
  void noFreeQueryPermitPostponesTheQueryWithoutBlocking() {
    RecoveryFixture f = new RecoveryFixture(RecoverySettings.DEFAULTS, true, 0);
    f.sources();
    f.sources(recoverable(MEMBER, PUBLISHER));
    ScriptedWorker w = f.worker(WORKER).thenAnswer(dump(0));
    f.live(stored(1));
    assertThat(w.received()).isEmpty();
    assertThat(f.stats().permitWaits()).isEqualTo(1);
    f.permits.release();
    f.scheduler.advanceMs(5);
    assertThat(w.received()).hasSize(1);
    f.scheduler.advanceMs(5);
    assertThat(f.appliedIds()).containsExactly(1L);
    assertThat(f.permits.availablePermits()).isEqualTo(1);
  }

  @Test
  void closeReleasesPermitsAndIgnoresLateAnswers() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).thenAnswerAfter(Duration.ofMillis(10), dump(0));
    f.live(stored(1));
    assertThat(f.permits.availablePermits()).isEqualTo(15);
    f.recovery.close();
    assertThat(f.permits.availablePermits()).isEqualTo(16);
    f.scheduler.advanceMs(100);
    f.live(stored(2));
    assertThat(f.commands).isEmpty();
    assertThat(f.permits.availablePermits()).isEqualTo(16);
  }

  @Test
  void rejectedReplaceRanksIsAFailedAttemptAndRetried() {
    RecoveryFixture f = bound(recoverable(MEMBER, PUBLISHER));
    f.worker(WORKER).otherwiseAnswer(r -> dump(0));
    f.live(stored(1));
    f.rejectNext = 1;
    f.scheduler.advanceMs(5);
    assertThat(f.commands).isEmpty();
    assertThat(f.stats().queryFailures(QueryFailureKind.SUBMIT_REJECTED)).isEqualTo(1);
    f.scheduler.advanceMs(200 + 5);
    assertThat(f.commands(PoolCommand.ReplaceRanks.class)).hasSize(1);
    assertThat(f.appliedIds()).containsExactly(1L);
  }
}
