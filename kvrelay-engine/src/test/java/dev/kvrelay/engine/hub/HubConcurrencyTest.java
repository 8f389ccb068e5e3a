package dev.kvrelay.engine.hub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.WireReplica;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Early publications before the barrier reply is seen, and a real actor thread racing a consumer thread. */
class HubConcurrencyTest {

  @Test
  void deltasOfTheNewLeaseArrivingBeforeTheBarrierReplyAreAppliedAfterInstall() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    a.store(1, 3);
    a.earlyDeltas = 3;
    RelayStream<PoolFrame> s = fx.registry.subscribe(a.identity.poolId(), a.identity, "s").get();
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    PoolFrame f;
    while ((f = s.poll()) != null) {
      r.apply(f);
    }
    assertThat(r.snapshotSequence).isEqualTo(3);
    HubFixture.assertSameWords(r.words, a.words());
    a.store(1, 1);
    a.publish();
    r.apply(s.poll());
    assertThat(r.sequence).isEqualTo(4);
    HubFixture.assertSameWords(r.words, a.words());
  }

  @Test
  void moreEarlyDeltasThanTheBroadcastCapacityReSubscribeUnderANewLease() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    a.earlyDeltas = HubSlot.EARLY_CAPACITY + 1;
    RelayStream<PoolFrame> s = fx.registry.subscribe(a.identity.poolId(), a.identity, "s").get();
    assertThat(a.subscribedLeases).hasSize(2);
    assertThat(fx.registry.stats().resnapshots()).isEqualTo(1);
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    PoolFrame f;
    while ((f = s.poll()) != null) {
      r.apply(f);
    }
    assertThat(r.snapshotSequence).isZero();
    HubFixture.assertSameWords(r.words, a.words());
  }

  @Test
  void actorThreadAndConsumerThreadConverge() throws Exception {
    ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor();
    try {
      ActorScheduler timers = new ActorScheduler() {
        @Override
        public void execute(Runnable task) {
          exec.execute(task);
        }

        @Override
        public void schedule(Runnable task, long delayNanos) {
          exec.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
      };
      HubRegistry registry = new HubRegistry(new HubSettings(4_096, 1L << 30, 10_000, 5_000, 64, 4, 2),
          HubFixture.RELAY, timers, System::nanoTime, () -> System.currentTimeMillis() * 1000,
          (p, id, reason, msg) -> { });
      HubFixture host = new HubFixture();
      HubFixture.Pool a = host.pool(41);
      a.slot = registry.attach(a.identity.poolId(), a.identity, a.identity.ckfFormat(), a);
      // the "actor": every producer call happens on exec
      CompletableFuture<RelayStream<PoolFrame>> sub = CompletableFuture.supplyAsync(() -> {
        try {
          return registry.subscribe(a.identity.poolId(), a.identity, "c").get();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }, exec);
      RelayStream<PoolFrame> s = sub.get(5, TimeUnit.SECONDS);
      AtomicReference<long[]> finalWords = new AtomicReference<>();
      java.util.concurrent.atomic.AtomicLong published = new java.util.concurrent.atomic.AtomicLong(-1);
      exec.execute(() -> {
        long n = 0;
        for (int i = 0; i < 400; i++) {
          a.store(1 + i % 3, 1 + i % 4);
          if (a.publish() instanceof dev.kvrelay.ckf.producer.CkfDelta) {
            n++;
          }
        }
        finalWords.set(a.words());
        published.set(n);
      });
      WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while ((!r.installed || published.get() < 0 || r.sequence < published.get()) && System.nanoTime() < deadline) {
        PoolFrame f = s.poll(50, TimeUnit.MILLISECONDS);
        if (f != null) {
          r.apply(f);
        }
      }
      assertThat(published.get()).isGreaterThan(300);
      assertThat(r.sequence).isEqualTo(published.get());
      HubFixture.assertSameWords(r.words, finalWords.get());
      s.close();
      assertThat(registry.stats().openStreams()).isZero();
      registry.close();
    } finally {
      exec.shutdownNow();
    }
  }
}
