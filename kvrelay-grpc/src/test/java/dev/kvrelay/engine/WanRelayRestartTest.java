package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.consumer.BackoffPolicy;
import dev.kvrelay.engine.consumer.ConsumerStats;
import dev.kvrelay.engine.consumer.GlobalViewAnswer;
import dev.kvrelay.engine.consumer.RelayConsumer;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A relay restart seen from another DC over real loopback gRPC (wan-grpc.md §7.2, §7.4 step 6, §7.6): while the
 * relay is down the router's answer for that DC fails closed (no stale match), and once a new relay incarnation
 * listens on the same address the same {@code RelayGrpcClient} and {@code RelayConsumer} reconnect with backoff,
 * drop the old incarnation's state, resubscribe and answer exactly again, including blocks cached during the
 * outage (recovered by the new relay from the workers).
 */
@Timeout(120)
class WanRelayRestartTest {
  private static final int PROMPTS = 24;

  @Test
  void aRouterFailsClosedWhileTheRelayIsDownThenReconnectsToTheNewIncarnationAndAnswersExactly() throws Exception {
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("us-west").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:0").build();
    ScheduledExecutorService routerThread = Executors.newSingleThreadScheduledExecutor();
    RelayConsumer router = null;
    RelayGrpcClient client = null;
    RelayGrpcServer server = null;
    try (RelayHarness h = new RelayHarness(config, true)) {
      List<SimWorker> workers = List.of(
          h.worker("ns/backend/generate", 51, card("llama", "aggregated", null, 0, 2), 0, 2, true, null).start(),
          h.worker("ns/backend/generate", 52, card("llama", "aggregated", null, 0, 2), 0, 2, true, null).start());
      server = RelayGrpcServer.builder().engine(h.engine).build();
      server.start();
      int port = server.port();
      client = RelayGrpcClient.builder().target("127.0.0.1:" + port).build();
      RelayIdentity before = client.getRelayInfo();
      KvPoolDescriptor pool = h.pool(RelayHarness.ep("ns/backend/generate"));
      router = RelayConsumer.builder()
          .consumerInstance(5)
          .domain(pool.poolId().indexerDomain())
          .format(pool.producer().ckfFormat())
          .semantics(new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1))
          .maxAgeUs(60_000_000)
          .subscriberIdBase("router-restart")
          .backoff(new BackoffPolicy(20_000_000L, 200_000_000L, true))
          .executor(routerThread)
          .clocks(System::nanoTime, () -> System.currentTimeMillis() * 1000)
          .source("us-west", client)
          .build();
      router.start();

      int[][] prompts = new int[PROMPTS][];
      for (int p = 0; p < PROMPTS; p++) {
        prompts[p] = RelayEngineScenarioTest.prompt(31_000 + p, 5);
      }
      for (int p = 0; p < PROMPTS / 2; p++) {
        workers.get(p % 2).cache(p % 2, java.util.Arrays.copyOf(prompts[p], (1 + p % 5) * 16));
      }
      RelayConsumer r = router;
      awaitExact(r, workers, prompts);
      long reconnectsBefore = r.stats().reconnects();

      // The relay goes down: the router must stop answering from the old replica (a transport end invalidates it).
      server.close();
      h.restart();
      await("no answer from the relay that went away", () -> {
        GlobalViewAnswer a = r.query(prompts[0], "llama");
        return a.status() != GlobalViewAnswer.Status.ANSWERED || a.matches().isEmpty();
      });
      // Blocks cached while the relay is down reach the new incarnation through worker recovery.
      for (int p = PROMPTS / 2; p < PROMPTS; p++) {
        workers.get(p % 2).cache(p % 2, java.util.Arrays.copyOf(prompts[p], (1 + p % 5) * 16));
      }
      server = RelayGrpcServer.builder().engine(h.engine).address(new InetSocketAddress("127.0.0.1", port)).build();
      server.start();
      // The client's channel may still be in reconnect backoff from the outage: a fail-fast call made now can
      // see UNAVAILABLE, so the test waits for the first answer of the new listener instead of assuming it.
      RelayIdentity after = awaitRelayInfo(client);
      assertThat(after.relayIncarnation()).as("a new incarnation listens on the same address")
          .isNotEqualTo(before.relayIncarnation());

      awaitExact(r, workers, prompts);
      ConsumerStats stats = r.stats();
      assertThat(stats.reconnects()).as("the source was reset and reconnected").isGreaterThan(reconnectsBefore);
      assertThat(stats.sourcesStopped()).as("a restart is not a contract mismatch").isZero();
    } finally {
      if (router != null) {
        router.close();
      }
      routerThread.shutdownNow();
      if (client != null) {
        client.close();
      }
      if (server != null) {
        server.close();
      }
    }
  }

  private static RelayIdentity awaitRelayInfo(RelayGrpcClient client) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        return client.getRelayInfo();
      } catch (RelayException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the restarted relay never answered GetRelayInfo", e);
        }
        Thread.sleep(20);
      }
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /** Waits until every prompt's answer equals the exact prefix depth of the workers' live blocks. */
  private static void awaitExact(RelayConsumer router, List<SimWorker> workers, int[][] prompts)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    @Nullable String problem = "not checked";
    long exactBlocks = 0;
    while (System.nanoTime() < deadline) {
      problem = null;
      exactBlocks = 0;
      Set<Long> live = new HashSet<>();
      for (SimWorker w : workers) {
        live.addAll(w.liveCanonicals());
      }
      for (int p = 0; p < prompts.length && problem == null; p++) {
        long[] sequence = workers.get(0).sequenceHashes(prompts[p]);
        int exact = 0;
        while (exact < sequence.length && live.contains(sequence[exact])) {
          exact++;
        }
        exactBlocks += exact;
        GlobalViewAnswer a = router.query(prompts[p], "llama");
        int answered = a.status() == GlobalViewAnswer.Status.ANSWERED && a.matches().size() == 1
            ? a.matches().get(0).depthBlocks() : -1;
        if (answered != exact) {
          problem = "prompt " + p + ": answered " + answered + " (" + a.status() + "), exact " + exact;
        }
      }
      if (problem == null) {
        break;
      }
      Thread.sleep(20);
    }
    assertThat(problem).as("the answer equals the exact prefix depth").isNull();
    assertThat(exactBlocks).as("not vacuous").isGreaterThan(prompts.length / 2);
  }
}
