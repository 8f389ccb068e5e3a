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
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Threads and a real pool actor with the recovery as its ingest stage: the buffered events replayed after a recovery
 * exceed the actor's mailbox, and its task is stalled when the answer arrives. The replay runs in the actor's task
 * and applies each event at once (no mailbox in between, so nothing is refused or held): none is lost, the last one
 * included, and no further recovery query is needed.
 */
class PoolRecoveryHeldEventsTest {
  private static final MemberId M = new MemberId(21, 0);
  private static final long PUBLISHER = 5;

  @Test
  @Timeout(60)
  void aReplayLargerThanTheMailboxIsAppliedInlineNotLostAndNeedsNoFurtherQuery() throws Exception {
    int n = 200;
    TrueWorker worker = new TrueWorker(M);
    ScheduledExecutorService actorExec = Executors.newSingleThreadScheduledExecutor();
    CountDownLatch stall = new CountDownLatch(1);
    CountDownLatch queried = new CountDownLatch(1);
    CompletableFuture<Void> release = new CompletableFuture<>();
    AtomicInteger queries = new AtomicInteger();
    try {
      CkfProducer producer = CkfProducer.create(ActorHarness.config());
      PoolActorConfig small = new PoolActorConfig(16, 65_536, PoolActorConfig.DEFAULTS.publicationDelayNanos());
      ExecutorActorScheduler scheduler = new ExecutorActorScheduler(actorExec);
      PoolActor actor = PoolActor.start(producer, small, scheduler, p -> true, f -> { });
      // Advertising a recoverable source starts the initial-wave recovery: the worker answers from its state then
      // (no event yet), but the answer travels until all n events were delivered, so every one of them is buffered
      // behind the recovery and replayed at once. (Producing the first event before the query was asked made the
      // dump race it: 199 or 200 replayed events, and a test waiting for 199 hung when the dump lost the race.)
      RequestPlaneClient requests = new RequestPlaneClient() {
        @Override
        public CompletionStage<WorkerKvQueryResponse> query(
            RecoveryTarget target, WorkerKvQueryRequest request, Duration timeout) {
          queries.incrementAndGet();
          WorkerKvQueryResponse answer;
          synchronized (worker) {
            answer = worker.answer(request);
          }
          queried.countDown();
          return release.thenApply(v -> answer);
        }

        @Override
        public void close() {}
      };
      PoolRecovery recovery = PoolRecovery.onActor(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, actor, requests,
          new Semaphore(16), scheduler, System::nanoTime, TimeUnit.SECONDS.toNanos(30));
      recovery.updateSources(List.of(RecoveryFixture.recoverable(M, PUBLISHER)));
      assertThat(queried.await(30, TimeUnit.SECONDS)).as("the advertisement starts a recovery").isTrue();
      List<RouterEvent> events = new ArrayList<>();
      EventEnvelope envelope = new EventEnvelope(PUBLISHER, 0, 0, EventTopics.KV_EVENTS);
      for (int i = 1; i <= n; i++) {
        RouterEvent e;
        synchronized (worker) {
          e = worker.storeRoot(0x5000L + i);
        }
        events.add(e);
        recovery.onLiveEvent(envelope, e);
      }
      await(() -> recovery.stats().buffered() >= n, "every event is buffered behind the recovery");
      actorExec.execute(() -> {
        try {
          stall.await(); // the deliberate stall: the actor's task cannot run until released
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      release.complete(null); // the answer is posted to the stage while the actor's task is stalled
      stall.countDown();
      await(() -> applied(actor) == n,
          () -> "every replayed event applied; actor applied " + applied(actor) + ", " + recovery.stats());

      PoolStats.Recovery r = recovery.stats();
      assertThat(queries.get()).as("no gap recovery after the replay").isEqualTo(1);
      assertThat(r.gaps()).isZero();
      assertThat(r.stale()).as("the dump held no event, so none was stale").isZero();
      assertThat(r.discarded()).isZero();
      assertThat(r.bufferOverflows()).isZero();
      assertThat(r.submitRejected()).as("the stage's commands run inline: nothing is refused").isZero();

      CkfProducer model = CkfProducer.create(ActorHarness.config());
      StoredBatch b = new StoredBatch();
      for (RouterEvent e : events) {
        KvEventData.Stored st = (KvEventData.Stored) e.data();
        b.reset(M.workerId(), M.dpRank());
        b.addBlock(st.blocks().get(0).blockHash(), st.blocks().get(0).tokensHash());
        assertThat(model.stored(b).isOk()).isTrue();
      }
      CompletableFuture<long[]> words = new CompletableFuture<>();
      assertThat(actor.submit(new PoolCommand.CopyWords(words)).accepted()).isTrue();
      assertThat(words.get(10, TimeUnit.SECONDS)).as("the table holds every event, the last one included")
          .isEqualTo(model.copyWords());
      recovery.close();
    } finally {
      stall.countDown();
      release.complete(null);
      actorExec.shutdownNow();
    }
  }

  /** Events the actor applied, or -1 while its mailbox is too full to take the Stats command. */
  private static long applied(PoolActor actor) {
    CompletableFuture<PoolStats.Actor> reply = new CompletableFuture<>();
    if (!actor.submit(new PoolCommand.Stats(reply)).accepted()) {
      return -1;
    }
    return reply.orTimeout(10, TimeUnit.SECONDS).join().appliedEvents();
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    await(condition, () -> what);
  }

  /** Waits up to 30 s for {@code condition}; the failure names {@code what}, evaluated then (the state at the end). */
  private static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within 30 s: " + what.get());
      }
      Thread.sleep(1);
    }
  }
}
