package dev.kvrelay.engine.actor;

import static dev.kvrelay.engine.actor.ActorFixture.config;
import static dev.kvrelay.engine.actor.ActorFixture.replay;
import static dev.kvrelay.engine.actor.ActorFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import dev.kvrelay.engine.stats.PoolStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PoolActorThreadedTest {

  @Test
  void concurrentSubmittersOnARealExecutorProduceAContiguousReplayableStream() throws Exception {
    ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor();
    try {
      ConcurrentLinkedQueue<CkfPublication> published = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<SourceFault> faults = new ConcurrentLinkedQueue<>();
      PoolActor actor = PoolActor.start(CkfProducer.create(config(4096, 16)), PoolActorConfig.DEFAULTS,
          new ExecutorActorScheduler(exec), published::add, faults::add);
      CompletableFuture<BarrierSnapshot> first = new CompletableFuture<>();
      assertThat(actor.submit(new PoolCommand.Subscribe(1, first)).accepted()).isTrue();
      BarrierSnapshot start = first.get(5, TimeUnit.SECONDS);
      int threads = 4;
      int perThread = 500;
      List<Thread> submitters = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long worker = t + 1;
        submitters.add(new Thread(() -> {
          for (int i = 0; i < perThread; i++) {
            PoolCommand c = new PoolCommand.Apply(new MemberId(worker, 0), worker,
                stored(worker, 0, 0, i + 1, worker * 1_000_003L + i));
            while (!actor.submit(c).accepted()) {
              Thread.onSpinWait();
            }
          }
        }));
      }
      submitters.forEach(Thread::start);
      for (Thread t : submitters) {
        t.join(10_000);
      }
      CompletableFuture<BarrierSnapshot> second = new CompletableFuture<>();
      while (!actor.submit(new PoolCommand.Subscribe(2, second)).accepted()) {
        Thread.onSpinWait();
      }
      BarrierSnapshot end = second.get(5, TimeUnit.SECONDS);
      actor.shutdown().get(5, TimeUnit.SECONDS);
      assertThat(faults).isEmpty();
      assertThat(replay(start.snapshot(), new ArrayList<>(published))).isEqualTo(end.snapshot().words());
      CompletableFuture<PoolStats.Actor> st = new CompletableFuture<>();
      actor.submit(new PoolCommand.Stats(st));
      PoolStats.Actor s = st.get(5, TimeUnit.SECONDS);
      assertThat(s.appliedEvents()).isEqualTo(threads * perThread);
      assertThat(s.producer().mappings()).isEqualTo(threads * perThread);
      assertThat(s.state()).isEqualTo(ActorState.SHUT_DOWN);
    } finally {
      exec.shutdownNow();
    }
  }
}
