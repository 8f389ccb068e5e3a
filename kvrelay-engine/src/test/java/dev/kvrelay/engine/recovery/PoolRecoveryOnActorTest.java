package dev.kvrelay.engine.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SourceFault;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The recovery run as the pool actor's ingest stage (the engine's wiring, {@link PoolRecovery#onActor}): the inbox is
 * the one queue between a delivery thread and the pool's single writer, the member is checked once, and a stalled
 * actor parks the delivery thread instead of dropping anything.
 */
class PoolRecoveryOnActorTest {
  private static final MemberId M = new MemberId(11, 0);
  private static final long PUBLISHER = 1;
  private static final int INBOX = 4096;

  @Test
  @Timeout(60)
  void aStalledActorParksTheDeliveryThreadAfterExactlyTheInboxAndDropsNothing() throws Exception {
    int n = 6_000; // > the 4 096-pair inbox: the delivery thread itself must wait
    List<RouterEvent> events = new ArrayList<>();
    java.util.ArrayDeque<Long> resident = new java.util.ArrayDeque<>();
    for (long id = 1; id <= n; id++) {
      if (resident.size() < 64 || id % 2 == 1) {
        events.add(RecoveryFixture.stored(M, id, 0x1000L + id, id * 7));
        resident.add(0x1000L + id);
      } else {
        events.add(RecoveryFixture.removed(M, id, resident.poll()));
      }
    }
    ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor();
    CountDownLatch stall = new CountDownLatch(1);
    List<SourceFault> faults = new CopyOnWriteArrayList<>();
    try {
      CkfProducer producer = CkfProducer.create(ActorHarness.config());
      ExecutorActorScheduler scheduler = new ExecutorActorScheduler(exec);
      PoolActor actor = PoolActor.start(producer, PoolActorConfig.DEFAULTS, scheduler, p -> true, faults::add);
      PoolRecovery recovery = PoolRecovery.onActor(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, actor, null,
          new Semaphore(16), scheduler, System::nanoTime, TimeUnit.SECONDS.toNanos(30));
      recovery.updateSources(List.of(RecoveryFixture.liveOnly(M, PUBLISHER)));
      // The source is bound once the actor's task ran the posted update: wait for it, then stall that one task.
      CompletableFuture<PoolStats.Actor> bound = new CompletableFuture<>();
      actor.submit(new PoolCommand.Stats(bound));
      bound.get(30, TimeUnit.SECONDS);
      await(() -> recovery.stats().sources().size() == 1, "the source is bound");
      stallThePoolThread(exec, stall);
      AtomicInteger delivered = new AtomicInteger();
      Thread delivery = new Thread(() -> {
        for (RouterEvent e : events) {
          recovery.onLiveEvent(new EventEnvelope(PUBLISHER, 0, 0, EventTopics.KV_EVENTS), e);
          delivered.incrementAndGet();
        }
      }, "delivery");
      delivery.start();
      await(() -> recovery.backpressureWaits() > 0, "the delivery thread waits on a full inbox");
      // One queue: with the pool's task stalled nothing moves past the inbox, so the delivery thread parks on the
      // first event beyond its 4 096 pairs (a second queue behind it would have taken some first).
      assertThat(delivered.get()).isEqualTo(INBOX);
      assertThat(delivery.isAlive()).isTrue();
      stall.countDown();
      delivery.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(delivery.isAlive()).isFalse();
      await(() -> stats(actor).appliedEvents() == n, "every event applied");

      PoolRecoveryBackpressureTest.assertNothingLostAndTheTableIsTheModels(recovery, actor, events, n);
      assertThat(faults).isEmpty();
      recovery.close();
    } finally {
      stall.countDown();
      exec.shutdownNow();
    }
  }

  @Test
  @Timeout(60)
  void aFullInboxBehindAStalledActorDropsAfterTheBoundedWaitAndCountsIt() throws Exception {
    ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor();
    CountDownLatch stall = new CountDownLatch(1);
    try {
      CkfProducer producer = CkfProducer.create(ActorHarness.config());
      ExecutorActorScheduler scheduler = new ExecutorActorScheduler(exec);
      PoolActor actor = PoolActor.start(producer, PoolActorConfig.DEFAULTS, scheduler, p -> true, f -> { });
      PoolRecovery recovery = PoolRecovery.onActor(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, actor, null,
          new Semaphore(16), scheduler, System::nanoTime, TimeUnit.MILLISECONDS.toNanos(5));
      stallThePoolThread(exec, stall);
      for (long id = 1; id <= INBOX + 3; id++) {
        recovery.onLiveEvent(new EventEnvelope(PUBLISHER, 0, 0, EventTopics.KV_EVENTS),
            RecoveryFixture.stored(M, id, 0x1000L + id, id));
      }
      assertThat(recovery.stats().inboxOverflows()).isEqualTo(3);
      assertThat(recovery.backpressureWaits()).isEqualTo(3);
      stall.countDown();
      // No source is bound: every event that made it into the inbox is counted as an unknown publisher's.
      await(() -> recovery.stats().unknownPublisher() == INBOX, "the inbox drained by the actor's task");
      recovery.close();
    } finally {
      stall.countDown();
      exec.shutdownNow();
    }
  }

  @Test
  void anEventOfAnotherMemberIsCheckedOnceCountedOnceAndNeverFaultsTheActor() {
    ActorHarness h = new ActorHarness();
    h.recovery.updateSources(List.of(RecoveryFixture.liveOnly(M, PUBLISHER)));
    h.scheduler.runReady();
    h.live(PUBLISHER, RecoveryFixture.stored(M, 1, 0x11, 1));
    h.live(PUBLISHER, RecoveryFixture.stored(new MemberId(M.workerId() + 1, 0), 2, 0x12, 2));
    h.live(PUBLISHER, RecoveryFixture.stored(M, 2, 0x13, 3));
    h.quiesce();
    PoolStats.Recovery r = h.recovery.stats();
    assertThat(r.memberMismatch()).isEqualTo(1);
    assertThat(r.applied()).isEqualTo(2);
    assertThat(h.faults).isEmpty(); // the actor does not check it again (no MEMBER_MISMATCH fault, no fence)
    CompletableFuture<PoolStats.Actor> reply = new CompletableFuture<>();
    h.actor.submit(new PoolCommand.Stats(reply));
    h.scheduler.runReady();
    assertThat(reply.join().appliedEvents()).isEqualTo(2);
  }

  @Test
  void theActorTakesOneStageAndRunsInlineCommandsOnlyFromIt() {
    ActorHarness h = new ActorHarness();
    assertThatThrownBy(() -> h.actor.attachStage(() -> false)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> h.actor.runInline(PoolCommand.Flush.INSTANCE))
        .isInstanceOf(IllegalStateException.class);
  }

  /**
   * Occupies the pool's one thread until {@code stall} opens, and returns once it does (so no run of the actor's task
   * is under way, and every later one waits behind the stall).
   */
  private static void stallThePoolThread(ScheduledExecutorService exec, CountDownLatch stall)
      throws InterruptedException {
    CountDownLatch stalled = new CountDownLatch(1);
    exec.execute(() -> {
      stalled.countDown();
      try {
        stall.await(); // the deliberate stall: the pool's one task cannot run until released
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertThat(stalled.await(30, TimeUnit.SECONDS)).as("the pool thread is stalled").isTrue();
  }

  private static PoolStats.Actor stats(PoolActor actor) {
    return PoolRecoveryBackpressureTest.stats(actor);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    PoolRecoveryBackpressureTest.await(condition, what);
  }
}
