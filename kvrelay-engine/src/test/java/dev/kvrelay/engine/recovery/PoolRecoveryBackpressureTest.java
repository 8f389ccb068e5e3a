package dev.kvrelay.engine.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Backpressure: a stalled pool actor (the recovery is its ingest stage) and a burst larger than its mailbox and the
 * recovery's inbox together. Nothing is dropped: the events wait in the inbox, the delivery thread waits, and the
 * actor's table ends equal to a producer fed every event directly.
 */
class PoolRecoveryBackpressureTest {
  private static final MemberId M = new MemberId(11, 0);
  private static final long PUBLISHER = 1;

  @Test
  @Timeout(60)
  void aStalledActorWithABurstBeyondMailboxAndInboxDropsNothing() throws Exception {
    int n = 6_000; // > 256 mailbox + 4 096 inbox: the delivery thread itself must wait
    List<RouterEvent> events = new ArrayList<>();
    java.util.ArrayDeque<Long> resident = new java.util.ArrayDeque<>();
    for (long id = 1; id <= n; id++) {
      // Stores, and from 64 resident blocks on every other event removes the oldest: the small test table never
      // fills, and the final table holds 64 blocks.
      if (resident.size() < 64 || id % 2 == 1) {
        events.add(RecoveryFixture.stored(M, id, 0x1000L + id, id * 7));
        resident.add(0x1000L + id);
      } else {
        events.add(RecoveryFixture.removed(M, id, resident.poll()));
      }
    }
    ScheduledExecutorService actorExec = Executors.newSingleThreadScheduledExecutor();
    CountDownLatch stall = new CountDownLatch(1);
    try {
      ExecutorActorScheduler scheduler = new ExecutorActorScheduler(actorExec);
      actorExec.execute(() -> {
        try {
          stall.await(); // the deliberate stall: the actor's task cannot run until released
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      CkfProducer producer = CkfProducer.create(ActorHarness.config());
      PoolActor actor = PoolActor.start(producer, PoolActorConfig.DEFAULTS, scheduler, p -> true, f -> { });
      PoolRecovery recovery = PoolRecovery.onActor(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, actor, null,
          new Semaphore(16), scheduler, System::nanoTime, TimeUnit.SECONDS.toNanos(30));
      recovery.updateSources(List.of(RecoveryFixture.liveOnly(M, PUBLISHER)));
      Thread delivery = new Thread(() -> {
        for (RouterEvent e : events) {
          recovery.onLiveEvent(new EventEnvelope(PUBLISHER, 0, 0, EventTopics.KV_EVENTS), e);
        }
      }, "delivery");
      delivery.start();
      await(() -> recovery.backpressureWaits() > 0, "the delivery thread waits on a full inbox");
      assertThat(delivery.isAlive()).isTrue();
      stall.countDown();
      delivery.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(delivery.isAlive()).isFalse();
      await(() -> stats(actor).appliedEvents() == n, "every event applied");

      assertNothingLostAndTheTableIsTheModels(recovery, actor, events, n);
      recovery.close();
    } finally {
      stall.countDown();
      actorExec.shutdownNow();
    }
  }

  /**
   * Asserts that all {@code n} events were applied with nothing dropped, rejected or gapped, and that the actor's
   * table equals a producer fed the same events directly (shared with {@code PoolRecoveryOnActorTest}).
   */
  static void assertNothingLostAndTheTableIsTheModels(PoolRecovery recovery, PoolActor actor, List<RouterEvent> events,
      int n) throws Exception {
    PoolStats.Recovery r = recovery.stats();
    PoolStats.Actor a = stats(actor);
    assertThat(r.inboxOverflows()).isZero();
    assertThat(r.submitRejected()).isZero();
    assertThat(r.gaps()).isZero();
    assertThat(r.applied()).isEqualTo(n);
    assertThat(a.mailboxFull()).isZero();
    assertThat(a.permitsExhausted()).isZero();

    CkfProducer model = CkfProducer.create(ActorHarness.config());
    StoredBatch b = new StoredBatch();
    for (RouterEvent e : events) {
      if (e.data() instanceof dev.kvrelay.spi.eventplane.KvEventData.Stored st) {
        b.reset(M.workerId(), M.dpRank());
        b.addBlock(st.blocks().get(0).blockHash(), st.blocks().get(0).tokensHash());
        assertThat(model.stored(b).isOk()).isTrue();
      } else {
        long[] hashes = ((dev.kvrelay.spi.eventplane.KvEventData.Removed) e.data()).blockHashes();
        assertThat(model.removed(M.workerId(), M.dpRank(), hashes).isOk()).isTrue();
      }
    }
    assertThat(model.copyWords()).isNotEqualTo(CkfProducer.create(ActorHarness.config()).copyWords());
    CompletableFuture<long[]> words = new CompletableFuture<>();
    assertThat(actor.submit(new PoolCommand.CopyWords(words)).accepted()).isTrue();
    assertThat(words.get(10, TimeUnit.SECONDS)).isEqualTo(model.copyWords());
  }

  static PoolStats.Actor stats(PoolActor actor) {
    CompletableFuture<PoolStats.Actor> reply = new CompletableFuture<>();
    actor.submit(new PoolCommand.Stats(reply));
    return reply.orTimeout(10, TimeUnit.SECONDS).join();
  }

  static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(1);
    }
  }
}
