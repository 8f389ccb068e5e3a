package dev.kvrelay.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.consumer.BackoffPolicy;
import dev.kvrelay.engine.consumer.GlobalViewAnswer;
import dev.kvrelay.engine.consumer.GlobalViewMatch;
import dev.kvrelay.engine.consumer.RelayConsumer;
import dev.kvrelay.engine.consumer.ReplicaState;
import dev.kvrelay.engine.consumer.ReplicaStatus;
import dev.kvrelay.engine.wan.ModelKey;
import dev.kvrelay.engine.wan.TopologySnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link RelayConsumer} (the engine's consumer) over two {@link RelayGrpcClient}s, each pointed at an in-process
 * fake relay replaying real CBI1 frames of a real producer: its answers equal the exact model (each pool holds a
 * known prefix of the request's blocks).
 */
class RelayGrpcClientEndToEndTest {
  /** A 12-block request (block size 4) and its block hashes. */
  static final int[] REQUEST = tokens(100, 100 + 4 * 12 - 1);
  static final long[] BLOCKS = blockHashes(REQUEST);

  private final List<AutoCloseable> resources = new ArrayList<>();
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

  static int[] tokens(int from, int toInclusive) {
    int[] t = new int[toInclusive - from + 1];
    for (int i = 0; i < t.length; i++) {
      t[i] = from + i;
    }
    return t;
  }

  static long[] blockHashes(int[] tokens) {
    try {
      return TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, 4).blockHashes(tokens);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    executor.shutdownNow();
    assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  static int depth(GlobalViewAnswer answer, KvPoolId pool) {
    for (GlobalViewMatch m : answer.matches()) {
      if (m.pool().equals(pool)) {
        return m.depthBlocks();
      }
    }
    return -1;
  }

  private InProcessRelay serve(CbiReplayRelay relay) {
    InProcessRelay r = new InProcessRelay(relay);
    resources.add(r);
    return r;
  }

  @Test
  void aRelayConsumerOverTwoGrpcClientsAnswersQueriesExactlyAndFollowsDeltas() throws Exception {
    TopologySnapshot topology = new TopologySnapshot(1, List.of(RelayGrpcClientTest.readyEntry("llama")));
    CbiReplayRelay dcA = new CbiReplayRelay(new RelayIdentity(100, 1), RelayGrpcClientTest.descriptor(41), topology);
    CbiReplayRelay dcB = new CbiReplayRelay(new RelayIdentity(101, 1), RelayGrpcClientTest.descriptor(42), topology);
    dcA.store(Arrays.copyOf(BLOCKS, 5));
    dcB.store(Arrays.copyOf(BLOCKS, 9));
    InProcessRelay a = serve(dcA);
    InProcessRelay b = serve(dcB);

    RelayConsumer consumer = RelayConsumer.builder()
        .consumerInstance(23)
        .domain(RelayGrpcClientTest.domain(1))
        .format(RelayGrpcClientTest.FORMAT)
        .semantics(RelayGrpcClientTest.STD4)
        .maxAgeUs(60_000_000L)
        .subscriberIdBase("router-1")
        .executor(executor)
        .clocks(System::nanoTime, () -> System.currentTimeMillis() * 1000)
        .backoff(new BackoffPolicy(10_000_000L, 100_000_000L, false))
        .randomSeed(7)
        .source("dc-41", a.client)
        .source("dc-42", b.client)
        .build();
    resources.add(consumer);
    consumer.start();

    await("both replicas live", () -> consumer.replicaStates().size() == 2
        && consumer.replicaStates().stream().allMatch(s -> s.state() == ReplicaState.LIVE));
    assertThat(consumer.replicaStates()).extracting(ReplicaStatus::producer)
        .containsExactlyInAnyOrder(dcA.descriptor.producer(), dcB.descriptor.producer());

    GlobalViewAnswer answer = consumer.query(REQUEST, "llama");
    assertThat(answer.status()).isEqualTo(GlobalViewAnswer.Status.ANSWERED);
    assertThat(answer.matches()).extracting(GlobalViewMatch::pool, GlobalViewMatch::depthBlocks,
        GlobalViewMatch::matchedTokens).containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple(dcA.poolId(), 5, 20L),
        org.assertj.core.groups.Tuple.tuple(dcB.poolId(), 9, 36L));

    // a request diverging after 3 blocks matches min(held, 3) in both DCs
    int[] diverging = REQUEST.clone();
    diverging[3 * 4 + 1] = 999_999;
    GlobalViewAnswer second = consumer.query(diverging, "llama");
    assertThat(depth(second, dcA.poolId())).isEqualTo(3);
    assertThat(depth(second, dcB.poolId())).isEqualTo(3);
    assertThat(consumer.query(REQUEST, "other-model").status()).isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);

    // a CBI1 delta over the wire extends A's chain to 8 blocks
    dcA.store(Arrays.copyOfRange(BLOCKS, 5, 8));
    dcA.publish();
    await("A's delta applied", () -> depth(consumer.query(REQUEST, "llama"), dcA.poolId()) == 8);
    assertThat(depth(consumer.query(REQUEST, "llama"), dcB.poolId())).isEqualTo(9);

    // readiness and load came through the client's decoders
    await("readiness and load of A", () -> consumer.readiness("dc-41").orElseThrow().revision() == 1
        && consumer.load("dc-41").orElseThrow().hasWindow());
    assertThat(consumer.readiness("dc-41").orElseThrow().entries())
        .containsKey(new ModelKey("prod", "llama"));
    assertThat(consumer.load("dc-41").orElseThrow().pools()).containsKey(dcA.poolId());
    // nothing failed on the way (a lane-mapping change may rebind and resubscribe a replica: that is no error)
    assertThat(consumer.stats().poolStreamErrors()).allSatisfy((reason, n) -> assertThat(n).isZero());
    assertThat(consumer.stats().watchErrors()).isZero();
    assertThat(consumer.stats().reconnects()).isZero();
    assertThat(consumer.stats().sourcesStopped()).isZero();
    assertThat(a.client.stats().rejectedMessages()).isZero();
    assertThat(b.client.stats().rejectedMessages()).isZero();
  }
}
