package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.engine.consumer.GlobalViewAnswer;
import dev.kvrelay.engine.consumer.GlobalViewMatch;
import dev.kvrelay.engine.consumer.RelayConsumer;
import dev.kvrelay.engine.consumer.ReplicaTermination;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.client.ScriptedRelay;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * C44 end to end (wan-grpc.md §7.4, §9): engine → {@link RelayGrpcServer} (loopback h2c) → a {@link ScriptedRelay}
 * proxy that forwards every stream unchanged → {@link RelayGrpcClient} → {@link RelayConsumer}. A pool with
 * kv_block_size 4: one worker stores one block for a 4-token prompt, and the consumer's answer for that prompt is 1
 * block / 4 tokens. The proxy then sends on the open pool stream a copy of the last frame whose producer differs only
 * in producer_incarnation (+ 1) and holds every later subscription unanswered: the replica fails closed
 * (IDENTITY_DRIFT) and the score is cleared.
 */
@Timeout(60)
class WanBlockScoreTest {
  static final long DEADLINE_MS = 10_000;

  /** Forwards one server-streaming call from {@code upstream} to {@code out}, serialized on {@code out}. */
  static <Q, R> void forward(Q request, ServerCallStreamObserver<R> out,
      BiConsumer<Q, ClientResponseObserver<Q, R>> call, Predicate<R> pass) {
    call.accept(request, new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<Q> upstream) {
        out.setOnCancelHandler(() -> upstream.cancel("downstream cancelled", null));
      }

      @Override
      public void onNext(R value) {
        synchronized (out) {
          if (!out.isCancelled() && pass.test(value)) {
            out.onNext(value);
          }
        }
      }

      @Override
      public void onError(Throwable t) {
        synchronized (out) {
          if (!out.isCancelled()) {
            out.onError(t);
          }
        }
      }

      @Override
      public void onCompleted() {
        synchronized (out) {
          if (!out.isCancelled()) {
            out.onCompleted();
          }
        }
      }
    });
  }

  @Test
  void c44_aRealCachedBlockScores4TokensAndAProducerIncarnationPlusOneFrameFailsClosedAndClearsTheScore()
      throws Exception {
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("us-west").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:0").build();
    ScheduledExecutorService routerThread = Executors.newSingleThreadScheduledExecutor();
    try (RelayHarness h = new RelayHarness(config, true)) {
      SimWorker worker = new SimWorker(h.discovery, h.plane, h.requests, RelayHarness.ep("ns/backend/generate"), 901,
          card("llama", "aggregated", null, 0, 1).replace("\"kv_cache_block_size\":16", "\"kv_cache_block_size\":4"),
          0, 1, true, null, 4, null);
      h.workers.add(worker);
      worker.start();
      KvPoolDescriptor pool = h.pool(RelayHarness.ep("ns/backend/generate"));
      assertThat(pool.querySemantics().kvBlockSize()).isEqualTo(4);

      try (RelayGrpcServer server = RelayGrpcServer.builder().engine(h.engine).build()) {
        server.start();
        ManagedChannel upstream = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        KvEventRelayGrpc.KvEventRelayStub stub = KvEventRelayGrpc.newStub(upstream);
        KvEventRelayGrpc.KvEventRelayBlockingStub blocking = KvEventRelayGrpc.newBlockingStub(upstream);

        // the proxy: everything forwarded unchanged until the injection; afterwards pool subscriptions are held
        AtomicReference<@Nullable FilterUpdate> lastFrame = new AtomicReference<>();
        AtomicReference<@Nullable ServerCallStreamObserver<FilterUpdate>> openPool = new AtomicReference<>();
        List<ServerCallStreamObserver<FilterUpdate>> held = new CopyOnWriteArrayList<>();
        ScriptedRelay proxy = new ScriptedRelay();
        proxy.info = (q, out) -> {
          out.onNext(blocking.withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS).getRelayInfo(q));
          out.onCompleted();
        };
        proxy.catalog = (q, out) -> forward(q, out, stub::watchKvPoolCatalog, m -> true);
        proxy.readiness = (q, out) -> forward(q, out, stub::subscribeServingReadiness, m -> true);
        proxy.poolLoad = (q, out) -> forward(q, out, stub::subscribeKvPoolLoad, m -> true);
        proxy.servingLoad = (q, out) -> forward(q, out, stub::subscribeServingLoad, m -> true);
        proxy.pool = (q, out) -> {
          if (lastFrame.get() != null && openPool.get() == null) {
            held.add(out); // after the injection: never answered
            return;
          }
          openPool.set(out);
          forward(q, out, stub::subscribeKvPool, m -> {
            if (openPool.get() != out) {
              return false; // injected: nothing from upstream follows on this stream
            }
            lastFrame.set(m);
            return true;
          });
        };
        String name = InProcessServerBuilder.generateName();
        Server proxyServer = InProcessServerBuilder.forName(name).addService(proxy).build().start();
        ManagedChannel proxyChannel = InProcessChannelBuilder.forName(name).build();
        RelayConsumer router = null;
        try (RelayGrpcClient client = RelayGrpcClient.builder().channel(proxyChannel).build()) {
          router = RelayConsumer.builder()
              .consumerInstance(5)
              .domain(pool.poolId().indexerDomain())
              .format(pool.producer().ckfFormat())
              .semantics(new KvQuerySemantics(4, KvQueryHashFormat.DYNAMO_STANDARD_V1))
              .maxAgeUs(60_000_000)
              .subscriberIdBase("router-c44")
              .executor(routerThread)
              .clocks(System::nanoTime, () -> System.currentTimeMillis() * 1000)
              .source("us-west", client)
              .build();
          router.start();

          int[] prompt = {11, 22, 33, 44};
          int[] longer = {11, 22, 33, 44, 55, 66, 77, 88};
          long[] stored = worker.cache(0, prompt);
          assertThat(stored).as("a 4-token prompt is one block of 4").hasSize(1);

          GlobalViewMatch m = awaitMatch(router, prompt, x -> x != null && x.depthBlocks() == 1);
          assertThat(m.matchedTokens()).as("one cached block scores 4 tokens").isEqualTo(4);
          assertThat(m.pool()).isEqualTo(pool.poolId());
          GlobalViewMatch deeper = awaitMatch(router, longer, x -> x != null);
          assertThat(deeper.depthBlocks()).as("the second block is not cached").isEqualTo(1);
          assertThat(deeper.matchedTokens()).isEqualTo(4);
          assertThat(router.stats().invalidations().getOrDefault(ReplicaTermination.IDENTITY_DRIFT, 0L)).isZero();

          // a frame whose producer differs only in producer_incarnation, on the open stream
          ServerCallStreamObserver<FilterUpdate> out = openPool.get();
          FilterUpdate last = lastFrame.get();
          assertThat(out).isNotNull();
          assertThat(last).isNotNull();
          FilterUpdate drift = last.toBuilder().setProducer(last.getProducer().toBuilder()
              .setProducerIncarnation(last.getProducer().getProducerIncarnation() + 1)).build();
          assertThat(drift.getProducer().toBuilder()
              .setProducerIncarnation(last.getProducer().getProducerIncarnation()).build())
              .isEqualTo(last.getProducer());
          synchronized (out) {
            openPool.set(null);
            out.onNext(drift);
          }

          awaitMatch(router, prompt, x -> x == null || x.depthBlocks() == 0);
          // the counter is bumped by the consumer's task right after the lane is retired: wait for it (bounded)
          long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
          while (router.stats().invalidations().getOrDefault(ReplicaTermination.IDENTITY_DRIFT, 0L) == 0
              && System.nanoTime() < deadline) {
            Thread.sleep(5);
          }
          assertThat(router.stats().invalidations())
              .as("failed closed on the identity drift, and only on it").containsEntry(ReplicaTermination.IDENTITY_DRIFT, 1L);
          for (int i = 0; i < 5; i++) {
            GlobalViewMatch after = matchOf(router.query(prompt, "llama"));
            assertThat(after == null || after.depthBlocks() == 0).as("the score stays cleared: %s", after).isTrue();
            Thread.sleep(20);
          }
        } finally {
          if (router != null) {
            router.close();
          }
          for (ServerCallStreamObserver<FilterUpdate> o : held) {
            synchronized (o) {
              if (!o.isCancelled()) {
                o.onCompleted();
              }
            }
          }
          proxyChannel.shutdownNow();
          proxyServer.shutdownNow();
          upstream.shutdownNow();
          proxyServer.awaitTermination(5, TimeUnit.SECONDS);
          upstream.awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    } finally {
      routerThread.shutdownNow();
    }
  }

  private static @Nullable GlobalViewMatch matchOf(GlobalViewAnswer a) {
    if (a.status() != GlobalViewAnswer.Status.ANSWERED) {
      return null;
    }
    return a.matches().isEmpty() ? null : a.matches().get(0);
  }

  private static GlobalViewMatch awaitMatch(RelayConsumer router, int[] prompt,
      Predicate<@Nullable GlobalViewMatch> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    GlobalViewAnswer last = null;
    while (System.nanoTime() < deadline) {
      last = router.query(prompt, "llama");
      GlobalViewMatch m = matchOf(last);
      if (condition.test(m)) {
        return m;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("condition not met in time; last answer " + last);
  }
}
