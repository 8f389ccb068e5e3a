package dev.kvrelay.engine.recovery;


import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.engine.stats.PoolStats.SourceRecoveryState;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real threads: the in-memory request plane, a pool actor on an executor scheduler with the recovery as its ingest
 * stage, and a separate delivery thread.
 */
class PoolRecoveryThreadedTest {

  @Test
  @Timeout(10)
  void gappyLiveStreamFromAnotherThreadConvergesToEveryEventOnceInOrder() throws Exception {
    MemberId m = new MemberId(5, 0);
    int n = 300;
    List<RouterEvent> history = new ArrayList<>();
    for (long id = 1; id <= n; id++) {
      history.add(RecoveryFixture.stored(m, id, id, id * 7));
    }
    ScriptedWorker worker = new ScriptedWorker().otherwiseAnswer(q -> q.startEventId().isEmpty()
        ? new WorkerKvQueryResponse.TreeDump(List.of(), 0, "all")
        : new WorkerKvQueryResponse.Events(history.subList((int) q.startEventId().getAsLong() - 1, n), n));
    List<PoolCommand> commands = new CopyOnWriteArrayList<>();
    ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor();
    try (InMemoryRequestPlane plane = new InMemoryRequestPlane()) {
      plane.register(m.workerId(), worker);
      Semaphore permits = new Semaphore(16);
      ExecutorActorScheduler scheduler = new ExecutorActorScheduler(exec);
      PoolActor actor = PoolActor.start(CkfProducer.create(ActorHarness.config()), PoolActorConfig.DEFAULTS,
          scheduler, p -> true, f -> { });
      PoolRecovery recovery = PoolRecovery.onActor(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, actor, plane,
          permits, scheduler, System::nanoTime, PoolRecovery.INBOX_WAIT_NANOS, inline -> c -> {
            SubmitResult result = inline.apply(c);
            if (result.accepted()) {
              commands.add(c);
            }
            return result;
          });
      recovery.updateSources(List.of());
      recovery.updateSources(List.of(RecoveryFixture.recoverable(m, 1)));
      Thread delivery = new Thread(() -> {
        for (RouterEvent e : history) {
          if (e.eventId() % 37 != 0) {
            recovery.onLiveEvent(new EventEnvelope(1, 0, 0, EventTopics.KV_EVENTS), e);
          }
        }
      }, "delivery");
      delivery.start();
      delivery.join();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
      while (appliedIds(commands).size() < n && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      List<Long> ids = appliedIds(commands);
      assertThat(ids).hasSize(n);
      for (int i = 0; i < n; i++) {
        assertThat(ids.get(i)).isEqualTo(i + 1L);
      }
      assertThat(commands.get(0)).isInstanceOf(PoolCommand.ReplaceRanks.class);
      // The per-source stats, read from this thread while the serial task runs on the executor: the source ends
      // live with nothing buffered (polled: the task publishes the state after its last apply).
      while (!recovery.stats().sources().get(0).state().equals(SourceRecoveryState.LIVE)
          || recovery.stats().sources().get(0).bufferedEvents() != 0) {
        assertThat(System.nanoTime()).as("source live, buffer empty").isLessThan(deadline);
        Thread.sleep(1);
      }
      assertThat(recovery.stats().sources()).singleElement().satisfies(s -> {
        assertThat(s.workerId()).isEqualTo(5);
        assertThat(s.publisherId()).isEqualTo(1);
        assertThat(s.lastEventAgeMs()).isGreaterThanOrEqualTo(0);
      });
      recovery.close();
      assertThat(permits.availablePermits()).isEqualTo(16);
    } finally {
      exec.shutdownNow();
    }
  }

  private static List<Long> appliedIds(List<PoolCommand> commands) {
    List<Long> ids = new ArrayList<>();
    for (PoolCommand c : commands) {
      if (c instanceof PoolCommand.Apply a) {
        ids.add(a.event().eventId());
      }
    }
    return ids;
  }
}
