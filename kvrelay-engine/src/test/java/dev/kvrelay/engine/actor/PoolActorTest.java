package dev.kvrelay.engine.actor;

import static dev.kvrelay.engine.actor.ActorFixture.cleared;
import static dev.kvrelay.engine.actor.ActorFixture.config;
import static dev.kvrelay.engine.actor.ActorFixture.feed;
import static dev.kvrelay.engine.actor.ActorFixture.removed;
import static dev.kvrelay.engine.actor.ActorFixture.replay;
import static dev.kvrelay.engine.actor.ActorFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfOutcome;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.RankReplacement;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PoolActorTest {
  private static final long MS = 1_000_000L;

  @Test
  void constantsOfProducerSpec31() {
    assertThat(PoolActorConfig.DEFAULTS.mailboxCapacity()).isEqualTo(256);
    assertThat(PoolActorConfig.DEFAULTS.pendingBlockPermits()).isEqualTo(65_536);
    assertThat(PoolActorConfig.DEFAULTS.publicationDelayNanos()).isEqualTo(1_000_000L);
    assertThat(PoolActorConfig.BROADCAST_CAPACITY).isEqualTo(64);
    assertThat(PoolActorConfig.DEFAULT_PUBLICATION_THRESHOLD).isEqualTo(16);
  }

  @Test
  void thresholdDrainsRightAfterTheSixteenthEvent() throws Exception {
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    for (int i = 1; i <= 15; i++) {
      f.apply(stored(1, 0, 0, 1000 + i, 5000 + i));
    }
    f.scheduler.runReady();
    assertThat(f.published).isEmpty();
    f.apply(stored(1, 0, 0, 1016, 5016));
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(1);
    // the timer armed by the first event is stale now: it publishes nothing more
    f.scheduler.advance(MS);
    assertThat(f.published).hasSize(1);
    PoolStats.Actor s = f.stats();
    assertThat(s.thresholdDrains()).isEqualTo(1);
    assertThat(s.timerDrains()).isZero();
  }

  @Test
  void timerDrainsPendingEventsAfterOneMillisecond() throws Exception {
    ActorFixture f = new ActorFixture();
    BarrierSnapshot barrier = f.subscribe(1);
    CkfProducer ref = CkfProducer.create(config(1024, 16));
    for (int i = 0; i < 3; i++) {
      RouterEvent e = stored(1, 0, 0, 10 + i, 900 + i);
      f.apply(e);
      feed(ref, e);
    }
    f.scheduler.advance(MS - 1);
    assertThat(f.published).isEmpty();
    assertThat(f.scheduler.timersScheduled()).as("one timer per window").isEqualTo(1);
    f.scheduler.advance(1);
    assertThat(f.deltas()).hasSize(1);
    assertThat(f.deltas().get(0).baseSequence()).isEqualTo(barrier.snapshot().sequence());
    assertThat(replay(barrier.snapshot(), f.published)).isEqualTo(ref.copyWords());
    assertThat(f.stats().timerDrains()).isEqualTo(1);
  }

  @Test
  void timerIsRearmedForTheNextWindow() throws Exception {
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    f.apply(stored(1, 0, 0, 1, 2));
    f.scheduler.advance(MS);
    f.apply(stored(1, 0, 0, 3, 4));
    f.scheduler.advance(MS);
    assertThat(f.deltas()).hasSize(2);
    assertThat(f.scheduler.timersScheduled()).isEqualTo(2);
  }

  @Test
  void flushResetRankAndReplaceRanksDrainImmediately() throws Exception {
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    f.apply(stored(1, 0, 0, 1, 2));
    f.actor.submit(PoolCommand.Flush.INSTANCE);
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(1);

    f.apply(stored(2, 0, 0, 3, 4));
    f.scheduler.runReady();
    f.actor.submit(new PoolCommand.ResetRank(new MemberId(1, 0), true));
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(2);

    RankReplacement r = RankReplacement.forMember(3, 0);
    assertThat(r.pushStored(new StoredBatch().reset(3, 0).addBlock(7, 8))).isEqualTo(CkfOutcome.OK);
    f.actor.submit(new PoolCommand.ReplaceRanks(List.of(r)));
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(3);

    CkfProducer ref = CkfProducer.create(config(1024, 16));
    feed(ref, stored(2, 0, 0, 3, 4));
    ref.replaceRanks(List.of(RankReplacement.forMember(3, 0)));
    RankReplacement r2 = RankReplacement.forMember(3, 0);
    r2.pushStored(new StoredBatch().reset(3, 0).addBlock(7, 8));
    ref.replaceRanks(List.of(r2));
    PoolStats.Actor s = f.stats();
    assertThat(s.commandDrains()).isEqualTo(3);
    assertThat(s.degradedResets()).isEqualTo(1);
    assertThat(s.producer().residentCount()).isEqualTo(ref.residentCount());
    assertThat(f.scheduler.pendingTimers()).as("the armed timers are stale").isLessThanOrEqualTo(2);
  }

  @Test
  void decisionUnknownResidencyDomainIsCountedNotAppliedAndSourceNotRejected() throws Exception {
    // ckf-cbi1.md §3.4 decision box: no mutation, no pending count, counted, source NOT rejected.
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    RouterEvent e = new RouterEvent(1, StorageTier.DEVICE, ResidencyDomain.unknown("nvme_pool"), 1, 0,
        new KvEventData.Stored(java.util.OptionalLong.empty(), java.util.OptionalLong.empty(),
            List.of(dev.kvrelay.spi.eventplane.StoredBlock.of(1, 2))));
    assertThat(f.apply(e).accepted()).isTrue();
    f.scheduler.advance(5 * MS);
    PoolStats.Actor s = f.stats();
    assertThat(s.unsupportedResidency()).isEqualTo(1);
    assertThat(s.producer().pendingEvents()).isZero();
    assertThat(s.producer().mappings()).isZero();
    assertThat(f.faults).isEmpty();
    assertThat(f.scheduler.timersScheduled()).isZero();
    // the same source keeps being applied
    f.apply(stored(1, 0, 0, 1, 2));
    f.actor.submit(PoolCommand.Flush.INSTANCE);
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(1);
    assertThat(f.stats().state()).isEqualTo(ActorState.RUNNING);
  }

  @Test
  void nonPrimaryEventsAreIgnoredWithoutPendingCount() {
    ActorFixture f = new ActorFixture();
    RouterEvent pinned = new RouterEvent(1, StorageTier.HOST_PINNED, ResidencyDomain.WORKER, 1, 0,
        KvEventData.Removed.of(1));
    RouterEvent owner = new RouterEvent(1, StorageTier.DEVICE, ResidencyDomain.CACHE_OWNER, 1, 0,
        KvEventData.Cleared.INSTANCE);
    f.apply(pinned);
    f.apply(owner);
    f.scheduler.runReady();
    PoolStats.Actor s = f.stats();
    assertThat(s.ignoredNonPrimary()).isEqualTo(2);
    assertThat(s.appliedEvents()).isZero();
    assertThat(s.producer().pendingEvents()).isZero();
    assertThat(f.scheduler.timersScheduled()).isZero();
  }

  @Test
  void dispositionTableOfProducerSpec35() {
    assertThat(FaultKind.of(CkfOutcome.CAPACITY_EXHAUSTED).disposition())
        .isEqualTo(FaultDisposition.CONTINUE_CAPACITY_OMISSION);
    for (CkfOutcome o : List.of(CkfOutcome.PARENT_BLOCK_NOT_FOUND, CkfOutcome.INVALID_BLOCK_SEQUENCE,
        CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW, CkfOutcome.INVALID_TREE_DUMP)) {
      assertThat(FaultKind.of(o).disposition()).as(o.name()).isEqualTo(FaultDisposition.REJECT_SOURCE);
    }
    assertThat(FaultKind.of(CkfOutcome.INDEXER_INVARIANT_VIOLATION).disposition())
        .isEqualTo(FaultDisposition.FENCE_AND_REBUILD_PRODUCER);
    assertThat(FaultKind.MEMBER_MISMATCH.disposition()).isEqualTo(FaultDisposition.REJECT_SOURCE);
  }

  @Test
  void capacityExhaustedContinuesAndIsReportedWithMemberAndPublisher() {
    ActorFixture f = new ActorFixture(config(2, 16), PoolActorConfig.DEFAULTS);
    for (int i = 0; i < 12; i++) {
      f.apply(stored(5, 1, 0, 100 + i, 7_000 + i * 7919L));
    }
    f.scheduler.runReady();
    assertThat(f.faults).isNotEmpty();
    assertThat(f.faults).allSatisfy(x -> {
      assertThat(x.kind()).isEqualTo(FaultKind.CAPACITY_EXHAUSTED);
      assertThat(x.disposition()).isEqualTo(FaultDisposition.CONTINUE_CAPACITY_OMISSION);
      assertThat(x.member()).isEqualTo(new MemberId(5, 1));
      assertThat(x.publisherId()).isEqualTo(77);
    });
    PoolStats.Actor s = f.stats();
    assertThat(s.state()).isEqualTo(ActorState.RUNNING);
    assertThat(s.capacityOmissions()).isEqualTo(f.faults.size());
    assertThat(s.producer().mappings()).isEqualTo(12);
  }

  @Test
  void parentNotFoundAndInvalidSequenceRejectTheSourceAndLeaveTheActorRunning() throws Exception {
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    f.apply(stored(1, 0, 999, 1, 2)); // unknown parent
    f.apply(stored(1, 0, 0, 5, 6));
    f.apply(stored(1, 0, 0, 5, 66)); // same external id, other canonical hash
    f.actor.submit(PoolCommand.Flush.INSTANCE);
    f.scheduler.runReady();
    assertThat(f.faults).extracting(SourceFault::kind)
        .containsExactly(FaultKind.PARENT_BLOCK_NOT_FOUND, FaultKind.INVALID_BLOCK_SEQUENCE);
    assertThat(f.faults).allSatisfy(x -> assertThat(x.disposition()).isEqualTo(FaultDisposition.REJECT_SOURCE));
    PoolStats.Actor s = f.stats();
    assertThat(s.rejectSource()).isEqualTo(2);
    assertThat(s.state()).isEqualTo(ActorState.RUNNING);
    assertThat(s.producer().mappings()).isEqualTo(1);
    assertThat(f.deltas()).hasSize(1);
  }

  @Test
  void memberMismatchIsATypedFaultAndChangesNothing() {
    ActorFixture f = new ActorFixture();
    f.actor.submit(new PoolCommand.Apply(new MemberId(2, 0), 9, stored(1, 0, 0, 1, 2)));
    f.scheduler.runReady();
    assertThat(f.faults).containsExactly(new SourceFault(new MemberId(2, 0), 9, FaultKind.MEMBER_MISMATCH));
    PoolStats.Actor s = f.stats();
    assertThat(s.producer().pendingEvents()).isZero();
    assertThat(s.producer().mappings()).isZero();
    assertThat(s.appliedEvents()).isZero();
  }

  @Test
  void throwingListenersNeverKillTheActor() throws Exception {
    ActorFixture ok = new ActorFixture();
    PoolActor actor = PoolActor.start(CkfProducer.create(config(1024, 1)), PoolActorConfig.DEFAULTS,
        ok.scheduler, p -> {
          throw new IllegalStateException("boom");
        }, x -> {
          throw new IllegalStateException("boom");
        });
    CompletableFuture<BarrierSnapshot> sub = new CompletableFuture<>();
    actor.submit(new PoolCommand.Subscribe(1, sub));
    actor.submit(new PoolCommand.Apply(new MemberId(1, 0), 1, stored(1, 0, 42, 1, 2)));
    actor.submit(new PoolCommand.Apply(new MemberId(1, 0), 1, stored(1, 0, 0, 1, 2)));
    CompletableFuture<PoolStats.Actor> st = new CompletableFuture<>();
    actor.submit(new PoolCommand.Stats(st));
    ok.scheduler.runReady();
    PoolStats.Actor s = st.join();
    assertThat(s.state()).isEqualTo(ActorState.RUNNING);
    assertThat(s.listenerErrors()).isEqualTo(2);
    assertThat(s.lags()).isEqualTo(1);
    assertThat(s.producer().mappings()).isEqualTo(1);
  }

  @Test
  void retireLeaseStopsPublicationUntilTheNextSubscribeAndIgnoresStaleLeases() throws Exception {
    ActorFixture f = new ActorFixture(config(1024, 1), PoolActorConfig.DEFAULTS);
    f.subscribe(5);
    f.apply(stored(1, 0, 0, 1, 2));
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(1);
    f.actor.submit(new PoolCommand.RetireLease(4)); // stale: ignored
    f.apply(stored(1, 0, 0, 3, 4));
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(2);
    f.actor.submit(new PoolCommand.RetireLease(5));
    f.apply(stored(1, 0, 0, 5, 6));
    f.scheduler.runReady();
    assertThat(f.deltas()).as("no lease, nothing published").hasSize(2);
    assertThat(f.stats().retiredLeases()).isEqualTo(1);
    BarrierSnapshot next = f.subscribe(6);
    CkfProducer ref = CkfProducer.create(config(1024, 1));
    feed(ref, stored(1, 0, 0, 1, 2));
    feed(ref, stored(1, 0, 0, 3, 4));
    feed(ref, stored(1, 0, 0, 5, 6));
    assertThat(next.snapshot().words()).as("the next barrier covers what was not published").isEqualTo(ref.copyWords());
  }

  @Test
  void shutdownDrainsAndPublishesTheTail() throws Exception {
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    f.apply(stored(1, 0, 0, 1, 2));
    f.apply(stored(1, 0, 0, 3, 4));
    CompletableFuture<Void> done = f.actor.shutdown();
    f.scheduler.runReady();
    assertThat(done).isCompleted();
    assertThat(f.deltas()).hasSize(1);
    assertThat(f.deltas().get(0).imageCount()).isPositive();
    assertThat(f.apply(stored(1, 0, 0, 5, 6))).isEqualTo(new SubmitResult.Rejected(RejectReason.CLOSED));
    assertThat(f.stats().state()).isEqualTo(ActorState.SHUT_DOWN);
  }

  @Test
  void fenceDiscardsTheTail() throws Exception {
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    f.apply(stored(1, 0, 0, 1, 2));
    f.scheduler.runReady();
    CompletableFuture<Void> done = f.actor.fence();
    f.scheduler.advance(5 * MS);
    assertThat(done).isCompleted();
    assertThat(f.published).isEmpty();
    assertThat(f.apply(stored(1, 0, 0, 5, 6))).isEqualTo(new SubmitResult.Rejected(RejectReason.CLOSED));
    assertThat(f.stats().state()).isEqualTo(ActorState.FENCED);
  }

  @Test
  void mailboxFullIsATypedRejectionAndNeverBlocks() {
    ActorFixture f = new ActorFixture();
    for (int i = 0; i < 256; i++) {
      assertThat(f.actor.submit(PoolCommand.Flush.INSTANCE).accepted()).isTrue();
    }
    assertThat(f.actor.submit(PoolCommand.Flush.INSTANCE))
        .isEqualTo(new SubmitResult.Rejected(RejectReason.MAILBOX_FULL));
    f.scheduler.runReady();
    assertThat(f.stats().mailboxFull()).isEqualTo(1);
    assertThat(f.actor.submit(PoolCommand.Flush.INSTANCE).accepted()).isTrue();
  }

  @Test
  void blockPermitsBoundQueuedEvents() {
    ActorFixture f = new ActorFixture(config(1024, 16), new PoolActorConfig(256, 10, MS));
    assertThat(f.apply(stored(1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6)).accepted()).isTrue();
    assertThat(f.apply(stored(1, 0, 0, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11)))
        .isEqualTo(new SubmitResult.Rejected(RejectReason.PERMITS_EXHAUSTED));
    assertThat(f.apply(removed(1, 0, 1, 2, 3, 4)).accepted()).isTrue();
    f.scheduler.runReady();
    assertThat(f.apply(stored(1, 0, 0, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11)).accepted()).isTrue();
    assertThat(f.actor.cost(cleared(1, 0))).isEqualTo(1);
    assertThat(f.actor.cost(removed(1, 0))).isEqualTo(1);
    assertThat(f.stats().permitsExhausted()).isEqualTo(1);
  }

  @Test
  void lagFencesPublicationUntilTheNextSubscriberResnapshots() throws Exception {
    ActorFixture f = new ActorFixture();
    f.subscribe(1);
    CkfProducer ref = CkfProducer.create(config(1024, 16));
    f.refuse = true;
    RouterEvent a = stored(1, 0, 0, 1, 2);
    f.apply(a);
    feed(ref, a);
    f.actor.submit(PoolCommand.Flush.INSTANCE);
    f.scheduler.runReady();
    f.refuse = false;
    RouterEvent b = stored(1, 0, 0, 3, 4);
    f.apply(b);
    feed(ref, b);
    f.actor.submit(PoolCommand.Flush.INSTANCE);
    f.scheduler.runReady();
    assertThat(f.published).as("fenced until re-snapshot").isEmpty();
    assertThat(f.stats().lags()).isEqualTo(1);
    BarrierSnapshot again = f.subscribe(2);
    assertThat(again.snapshot().words()).isEqualTo(ref.copyWords());
    RouterEvent c = stored(1, 0, 0, 5, 6);
    f.apply(c);
    feed(ref, c);
    f.actor.submit(PoolCommand.Flush.INSTANCE);
    f.scheduler.runReady();
    assertThat(f.deltas()).hasSize(1);
    assertThat(f.deltas().get(0).lease()).isEqualTo(2);
    assertThat(replay(again.snapshot(), f.published)).isEqualTo(ref.copyWords());
  }

  @Test
  void subscribeAfterFenceFailsTyped() {
    ActorFixture f = new ActorFixture();
    f.actor.fence();
    f.scheduler.runReady();
    CompletableFuture<BarrierSnapshot> r = new CompletableFuture<>();
    assertThat(f.actor.submit(new PoolCommand.Subscribe(1, r)))
        .isEqualTo(new SubmitResult.Rejected(RejectReason.CLOSED));
    assertThat(f.stats().state()).isEqualTo(ActorState.FENCED);
  }

  @Test
  void subscribeTailGoesToTheOldLeaseThenSnapshotCoversIt() throws Exception {
    ActorFixture f = new ActorFixture();
    BarrierSnapshot first = f.subscribe(1);
    CkfProducer ref = CkfProducer.create(config(1024, 16));
    RouterEvent a = stored(1, 0, 0, 1, 2);
    f.apply(a);
    feed(ref, a);
    f.scheduler.runReady();
    BarrierSnapshot second = f.subscribe(2);
    assertThat(second.tail()).isNotNull();
    assertThat(f.deltas()).containsExactly(second.tail());
    assertThat(second.tail().lease()).isEqualTo(1);
    assertThat(second.snapshot().sequence()).isEqualTo(first.snapshot().sequence() + 1);
    assertThat(second.snapshot().words()).isEqualTo(ref.copyWords());
  }
}
