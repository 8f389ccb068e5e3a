package dev.kvrelay.engine.load;

import static dev.kvrelay.engine.load.LoadFixtures.config;
import static dev.kvrelay.engine.load.LoadFixtures.env;
import static dev.kvrelay.engine.load.LoadFixtures.producer;
import static dev.kvrelay.engine.load.LoadFixtures.sched;
import static dev.kvrelay.engine.load.ServingLoadFixtures.NONE;
import static dev.kvrelay.engine.load.ServingLoadFixtures.descriptor;
import static dev.kvrelay.engine.load.ServingLoadFixtures.input;
import static dev.kvrelay.engine.load.ServingLoadFixtures.some;
import static dev.kvrelay.engine.load.ServingLoadFixtures.worker;
import static dev.kvrelay.spi.eventplane.SchedulerLoadScope.LOCAL;
import static dev.kvrelay.spi.eventplane.SchedulerLoadScope.REPLICA_SYNCHRONIZED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.ModelDeploymentStatus;
import dev.kvrelay.engine.wire.ModelServingLoad;
import dev.kvrelay.engine.wire.PoolDeploymentStatus;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.RequestLifecycleStats;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadView;
import dev.kvrelay.engine.wire.TokenLoadStats;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServingLoadWindowsTest {

  private static final long T0 = 1_700_000_000_000L;
  private static final long U64_MAX = -1L;

  private static ServingLoadWindows started() throws LoadWindowException {
    ServingLoadWindows w = new ServingLoadWindows(1000);
    w.initial(T0);
    return w;
  }

  private static ServingPoolInput withLoad(KvPoolDescriptor d, Map<Long, RuntimeConfig> configs, PoolLoadAggregator a) {
    a.refresh(configs);
    return new ServingPoolInput(d, configs, a.snapshot(T0));
  }

  /** wan-grpc.md §4.2, tested: "the initial window is empty (the aggregate starts empty)". */
  @Test
  void initialWindowIsEmptyWithSequenceZero() throws Exception {
    ServingLoadWindows w = new ServingLoadWindows(1000);
    assertThat(w.current()).isEmpty();
    ServingLoadUpdate u = w.initial(T0);
    assertThat(u).isEqualTo(new ServingLoadUpdate(0, T0, 1000, List.of(), List.of()));
    assertThat(w.current()).contains(u);
  }

  /**
   * wan-grpc.md §4.2, tested (CONF d95e45a, GSL): a pool without router reports ⇒ UNAVAILABLE with unset active
   * fields and deployment {live_workers = 1}.
   */
  @Test
  void poolWithoutRouterReportsIsUnavailableWithUnsetActiveFieldsAndOneLiveWorker() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1, "ns", "m");
    ServingPoolInput in = withLoad(d, Map.of(9L, RuntimeConfig.DEFAULT), new PoolLoadAggregator(PoolLoadSettings.DEFAULT));
    ServingLoadUpdate u = started().next(T0 + 1000, List.of(in));
    PoolServingLoad expected = new PoolServingLoad(d.producer(),
        new ServingLoadView(Optional.empty(), new TokenLoadStats(NONE, NONE, NONE, NONE, NONE, NONE),
            DataStatus.UNAVAILABLE, 0),
        new PoolDeploymentStatus(some(1), NONE));
    assertThat(u.pools()).containsExactly(expected);
  }

  @Test
  void completeSchedulerViewSetsPoolGaugesAndOldestSourceTime() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1, "ns", "m");
    PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
    a.refresh(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0 - 20), sched(9, 0, LOCAL, 6, 60), T0);
    a.observe(env(2, 0, T0 - 10), sched(9, 0, LOCAL, 4, 40), T0);
    ServingLoadUpdate u = started().next(T0, List.of(new ServingPoolInput(d, Map.of(9L, config(0, 1, 100)), a.snapshot(T0))));
    ServingLoadView view = u.pools().get(0).load();
    assertThat(view).isEqualTo(new ServingLoadView(Optional.empty(),
        new TokenLoadStats(some(100), some(10), NONE, NONE, NONE, NONE), DataStatus.COMPLETE, T0 - 20));
  }

  @Test
  void degradedPoolHasUnsetGauges() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1, "ns", "m");
    PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
    Map<Long, RuntimeConfig> configs = Map.of(9L, config(0, 2, 100));
    a.refresh(configs);
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 6, 60), T0);
    ServingLoadUpdate u = started().next(T0, List.of(new ServingPoolInput(d, configs, a.snapshot(T0))));
    assertThat(u.pools().get(0).load()).isEqualTo(new ServingLoadView(Optional.empty(),
        new TokenLoadStats(NONE, NONE, NONE, NONE, NONE, NONE), DataStatus.DEGRADED, T0));
  }

  /**
   * wan-grpc.md §4.2 decision box, scheduler-load aggregation: follow (A) (C36). The aggregation itself is pinned
   * by {@code PoolLoadAggregatorTest#decisionSchedulerMaxWithinReplicaGroupSumAcrossGroupsC36}; this pins that
   * the serving-load pools carry that aggregate unchanged: mixed scopes still COMPLETE (B would give none), max
   * within the replica group, plus the standalone scheduler.
   */
  @Test
  void decisionSchedulerAggregationFollowsAOfSection42() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1, "ns", "m");
    PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
    Map<Long, RuntimeConfig> configs = Map.of(9L, config(0, 1, 100));
    a.refresh(configs);
    a.observe(env(1, 0, T0), sched(9, 0, REPLICA_SYNCHRONIZED, 5, 50), T0);
    a.observe(env(2, 0, T0), sched(9, 0, REPLICA_SYNCHRONIZED, 7, 20), T0);
    a.observe(env(3, 0, T0), sched(9, 0, LOCAL, 3, 30), T0);
    ServingLoadView view = started().next(T0, List.of(new ServingPoolInput(d, configs, a.snapshot(T0))))
        .pools().get(0).load();
    assertThat(view.status()).isEqualTo(DataStatus.COMPLETE);
    assertThat(view.tokens().activeDecodeBlocks()).hasValue(7 + 3);
    assertThat(view.tokens().activePrefillTokens()).hasValue(50 + 30);
  }

  @Test
  void everyPoolIsListedSortedByPoolIdEvenWithoutServingFacts() throws Exception {
    KvPoolDescriptor p1 = descriptor(1, 5, "ns", "m");
    KvPoolDescriptor p2 = descriptor(1, 7, "ns", "m");
    KvPoolDescriptor p3 = descriptor(3, 1, "ns", "m");
    ServingLoadUpdate u = started().next(T0, List.of(input(p3), input(p1, Map.of(1L, RuntimeConfig.DEFAULT)), input(p2)));
    assertThat(u.pools()).extracting(PoolServingLoad::producer)
        .containsExactly(p1.producer(), p2.producer(), p3.producer());
    assertThat(u.pools()).extracting(PoolServingLoad::deployment).containsExactly(
        new PoolDeploymentStatus(some(1), NONE), PoolDeploymentStatus.EMPTY, PoolDeploymentStatus.EMPTY);
  }

  @Test
  void maxConcurrencyIsSumOfSeqsTimesDpSizeOnlyWhileEveryWorkerDeclaresMaxNumSeqs() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1, "ns", "m");
    Map<Long, RuntimeConfig> declared = Map.of(1L, worker(some(8), 2), 2L, worker(some(4), 1), 3L, worker(some(0), 3));
    ServingLoadUpdate u = started().next(T0, List.of(input(d, declared)));
    assertThat(u.pools().get(0).deployment()).isEqualTo(new PoolDeploymentStatus(some(3), some(8 * 2 + 4)));

    Map<Long, RuntimeConfig> oneUndeclared = Map.of(1L, worker(some(8), 2), 2L, worker(NONE, 1));
    ServingLoadUpdate v = started().next(T0, List.of(input(d, oneUndeclared)));
    assertThat(v.pools().get(0).deployment()).isEqualTo(new PoolDeploymentStatus(some(2), NONE));
  }

  @Test
  void maxConcurrencySaturatesAtU64Max() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1, "ns", "m");
    // u64 max × 2 overflows the product
    assertThat(started().next(T0, List.of(input(d, Map.of(1L, worker(some(U64_MAX), 2))))).pools().get(0)
        .deployment().maxConcurrency()).hasValue(U64_MAX);
    // 2^63 × 1 + 2^63 × 1 overflows the sum
    long half = Long.MIN_VALUE;
    assertThat(started().next(T0, List.of(input(d, Map.of(1L, worker(some(half), 1), 2L, worker(some(half), 1)))))
        .pools().get(0).deployment().maxConcurrency()).hasValue(U64_MAX);
    // 2^62 × 4096 = 2^74 overflows; (2^64 - 1) / 4096 × 4096 does not
    long fits = Long.divideUnsigned(U64_MAX, 4096);
    assertThat(started().next(T0, List.of(input(d, Map.of(1L, worker(some(fits), 4096))))).pools().get(0)
        .deployment().maxConcurrency()).hasValue(U64_MAX - 4095);
    assertThat(started().next(T0, List.of(input(d, Map.of(1L, worker(some(fits + 1), 4096))))).pools().get(0)
        .deployment().maxConcurrency()).hasValue(U64_MAX);
  }

  @Test
  void servingPoolsAreThePoolsRegisteringTheModelInThatNamespace() throws Exception {
    KvPoolDescriptor a1 = descriptor(1, 1, "a", "m1", "m2");
    KvPoolDescriptor a2 = descriptor(2, 1, "a", "m1");
    KvPoolDescriptor b1 = descriptor(3, 1, "b", "m1");
    ServingLoadUpdate u = started().next(T0, List.of(input(b1), input(a2), input(a1)));
    assertThat(u.models()).extracting(m -> m.namespace() + "/" + m.canonicalModelId())
        .containsExactly("a/m1", "a/m2", "b/m1");
    assertThat(u.models()).extracting(m -> m.deployment().servingPools()).containsExactly(
        List.of(a1.poolId(), a2.poolId()), List.of(a1.poolId()), List.of(b1.poolId()));
  }

  @Test
  void modelsAreSortedByNamespaceThenModelInUtf8ByteOrder() throws Exception {
    // U+FFFF sorts before U+1F600 in UTF-8 byte order, after it in UTF-16 code-unit order
    String bmp = "\uFFFF";
    String astral = "\uD83D\uDE00";
    assertThat(Arrays.compareUnsigned(bmp.getBytes(StandardCharsets.UTF_8), astral.getBytes(StandardCharsets.UTF_8)))
        .isNegative();
    ServingLoadUpdate u = started().next(T0, List.of(
        input(descriptor(1, 1, astral, "z")), input(descriptor(2, 1, bmp, astral, bmp)), input(descriptor(3, 1, "a", "b"))));
    assertThat(u.models()).extracting(m -> m.namespace() + "|" + m.canonicalModelId())
        .containsExactly("a|b", bmp + "|" + bmp, bmp + "|" + astral, astral + "|z");
  }

  /**
   * Decision (ours, wan-grpc.md §4.2 models): frontend inputs are not wired — the SPI has no frontend-load subject,
   * so there is nothing to receive, count or drop. Every model is UNAVAILABLE with 0 expected / observed / ready
   * frontends, request totals 0 (always present), request gauges unset, token totals 0 (always present), other
   * token fields unset. Change this test when a frontend-load subject is added.
   */
  @Test
  void decisionFrontendInputsAreNotWiredSoEveryModelIsUnavailableWithZeroFrontends() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1, "ns", "m");
    PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
    Map<Long, RuntimeConfig> configs = Map.of(9L, config(0, 1, 100));
    a.refresh(configs);
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 6, 60), T0);
    ServingLoadUpdate u = started().next(T0, List.of(new ServingPoolInput(d, configs, a.snapshot(T0))));
    assertThat(u.pools().get(0).load().status()).isEqualTo(DataStatus.COMPLETE);
    assertThat(u.models()).containsExactly(new ModelServingLoad("ns", "m",
        new ServingLoadView(Optional.of(new RequestLifecycleStats(0, 0, 0, 0, NONE, NONE)),
            new TokenLoadStats(NONE, NONE, NONE, NONE, some(0), some(0)), DataStatus.UNAVAILABLE, 0),
        new ModelDeploymentStatus(0, 0, 0, List.of(d.poolId()))));
  }

  @Test
  void windowSequenceStartsAtZeroAndIncreasesByOneCarryingClockAndWindow() throws Exception {
    ServingLoadWindows w = new ServingLoadWindows(U64_MAX);
    assertThat(w.initial(T0).windowSequence()).isZero();
    for (long s = 1; s <= 5; s++) {
      ServingLoadUpdate u = w.next(T0 + s * 1000, List.of());
      assertThat(u.windowSequence()).isEqualTo(s);
      assertThat(u.observedMs()).isEqualTo(T0 + s * 1000);
      assertThat(u.windowMs()).isEqualTo(U64_MAX);
      assertThat(w.current()).contains(u);
    }
  }

  @Test
  void nextBeforeInitialAndInitialTwiceAreTypedErrors() throws Exception {
    ServingLoadWindows w = new ServingLoadWindows(1000);
    assertThatThrownBy(() -> w.next(T0, List.of())).isInstanceOfSatisfying(LoadWindowException.class,
        e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.NOT_STARTED));
    assertThat(w.current()).isEmpty();
    ServingLoadUpdate first = w.initial(T0);
    assertThatThrownBy(() -> w.initial(T0 + 1)).isInstanceOfSatisfying(LoadWindowException.class,
        e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.ALREADY_STARTED));
    assertThat(w.current()).contains(first);
  }

  @Test
  void sequenceOverflowIsATypedErrorAndChangesNothing() throws Exception {
    ServingLoadWindows w = new ServingLoadWindows(1000, new ServingLoadUpdate(U64_MAX - 1, T0, 1000, List.of(), List.of()));
    ServingLoadUpdate last = w.next(T0 + 1, List.of());
    assertThat(last.windowSequence()).isEqualTo(U64_MAX);
    assertThatThrownBy(() -> w.next(T0 + 2, List.of())).isInstanceOfSatisfying(LoadWindowException.class,
        e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.SEQUENCE_EXHAUSTED));
    assertThat(w.current()).contains(last);
  }

  @Test
  void duplicatePoolIdIsATypedErrorAndChangesNothing() throws Exception {
    ServingLoadWindows w = started();
    ServingLoadUpdate before = w.current().orElseThrow();
    ProducerIdentity p = producer(1, 1);
    // same pool id, another generation: still one catalog pool id twice
    ProducerIdentity other = new ProducerIdentity(p.poolId(), p.producerIncarnation(), p.layoutGeneration() + 1,
        p.ckfFormat());
    KvPoolId id = p.poolId();
    assertThat(other.poolId()).isEqualTo(id);
    assertThatThrownBy(() -> w.next(T0, List.of(input(descriptor(p, "ns", List.of("m"))),
            input(descriptor(other, "ns", List.of("m"))))))
        .isInstanceOfSatisfying(LoadWindowException.class,
            e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.DUPLICATE_POOL));
    assertThat(w.current()).contains(before);
    assertThat(w.next(T0, List.of()).windowSequence()).isEqualTo(1);
  }

  @Test
  void aModelRegisteredTwiceInOnePoolListsThatPoolOnce() throws Exception {
    ProducerIdentity p = producer(1, 1);
    // the trusted constructor keeps duplicates; the projection still lists the pool once
    KvPoolDescriptor d = descriptor(p, "ns", List.of("m", "m"));
    ServingLoadUpdate u = started().next(T0, List.of(input(d)));
    assertThat(u.models()).singleElement()
        .satisfies(m -> assertThat(m.deployment().servingPools()).containsExactly(p.poolId()));
  }
}
