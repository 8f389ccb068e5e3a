package dev.kvrelay.launcher.system;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ModelServingLoad;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Immutable: the latest pool-load and serving-load windows the status page's own watches took ({@link
 * LoadWindowWatch}, subscriber id {@link StatusSampler#WATCH_ID}), per pool and per model, with each watch's
 * state.
 *
 * @param pool the latest pool-load window, or null before the watch took one
 * @param poolWatch the pool-load watch's state
 * @param serving the latest serving-load window, or null before the watch took one
 * @param servingWatch the serving-load watch's state
 */
record StatusLoadWindows(@Nullable PoolWindow pool, LoadWindowWatch.State poolWatch,
    @Nullable ServingWindow serving, LoadWindowWatch.State servingWatch) {

  /** Coverage: every expected rank observed, capacity known (the values are authoritative, wan-grpc.md §4.1). */
  static final String FULL = "FULL";
  /** Coverage: fewer ranks observed than expected. */
  static final String DEGRADED = "DEGRADED";
  /** Coverage: every expected rank observed, but the capacity is unknown (total 0). */
  static final String UNKNOWN_CAPACITY = "UNKNOWN_CAPACITY";
  /** Coverage: the pool declares no ranks. */
  static final String NO_RANKS = "NO_RANKS";

  /**
   * Immutable: one pool-load window.
   *
   * @param windowSequence the window's sequence (u64)
   * @param observedMs the producer wall clock when it was built (Unix ms)
   * @param windowMs the configured window (u64)
   * @param receivedAtMs when the page's watch took it (Unix ms)
   * @param ageMs the report's read time minus {@code observedMs}
   * @param pools one entry per pool of the window, by serving endpoint
   */
  record PoolWindow(long windowSequence, long observedMs, long windowMs, long receivedAtMs, long ageMs,
      List<PoolCoverage> pools) {
    PoolWindow {
      pools = List.copyOf(pools);
    }
  }

  /**
   * Immutable: one pool's entry of a pool-load window.
   *
   * @param endpoint the serving endpoint of the catalog pool with this producer (or pool id), or the pool id
   * @param producerIncarnation the entry's producer incarnation (u64)
   * @param generation the entry's layout generation (u64)
   * @param observedRanks ranks observed (u32)
   * @param expectedRanks ranks expected (u32)
   * @param coverage {@link #FULL}, {@link #DEGRADED}, {@link #UNKNOWN_CAPACITY} or {@link #NO_RANKS}
   * @param kvUsedBlocks aggregate used blocks, 0 when unavailable (u64)
   * @param totalKvBlocks aggregate capacity, 0 when unknown (u64)
   */
  record PoolCoverage(String endpoint, long producerIncarnation, long generation, long observedRanks,
      long expectedRanks, String coverage, long kvUsedBlocks, long totalKvBlocks) {}

  /**
   * Immutable: one serving-load window.
   *
   * @param windowSequence the window's sequence (u64)
   * @param observedMs the producer wall clock when it was built (Unix ms)
   * @param receivedAtMs when the page's watch took it (Unix ms)
   * @param ageMs the report's read time minus {@code observedMs}
   * @param pools one row per pool, by serving endpoint
   * @param models one row per (namespace, model)
   */
  record ServingWindow(long windowSequence, long observedMs, long receivedAtMs, long ageMs, List<ServingPool> pools,
      List<ServingModel> models) {
    ServingWindow {
      pools = List.copyOf(pools);
      models = List.copyOf(models);
    }
  }

  /**
   * Immutable: one pool of a serving-load window.
   *
   * @param endpoint as {@link PoolCoverage#endpoint()}
   * @param status the scheduler view's status ({@code COMPLETE}, {@code DEGRADED}, {@code UNAVAILABLE})
   * @param activePrefillTokens Σ active prefill tokens (u64), or null unless COMPLETE
   * @param activeDecodeBlocks Σ active decode blocks (u64), or null unless COMPLETE
   * @param liveWorkers workers with serving facts (u64), or null when none
   */
  record ServingPool(String endpoint, String status, @Nullable Long activePrefillTokens,
      @Nullable Long activeDecodeBlocks, @Nullable Long liveWorkers) {}

  /**
   * Immutable: one model of a serving-load window.
   *
   * @param namespace the Dynamo namespace
   * @param model the canonical model id
   * @param status the model view's status
   * @param expectedFrontends frontends expected (u64)
   * @param observedFrontends frontends with a fresh report (u64)
   * @param servingPools catalog pools serving the model
   */
  record ServingModel(String namespace, String model, String status, long expectedFrontends,
      long observedFrontends, int servingPools) {}

  /** The coverage of {@code e}: the engine's degraded rule (observed &lt; expected, or total 0), refined. */
  static String coverage(KvPoolLoadEntry e) {
    if (e.kvExpectedRanks() == 0) {
      return NO_RANKS;
    }
    if (e.kvObservedRanks() < e.kvExpectedRanks()) {
      return DEGRADED;
    }
    return e.totalKvBlocks() == 0 ? UNKNOWN_CAPACITY : FULL;
  }

  /** The windows {@code sampler}'s watches hold now, endpoints joined to {@code catalog}, ages at {@code nowMs}. */
  static StatusLoadWindows read(StatusSampler sampler, List<KvPoolDescriptor> catalog, long nowMs) {
    Map<ProducerIdentity, String> byProducer = new HashMap<>();
    Map<KvPoolId, String> byPool = new HashMap<>();
    for (KvPoolDescriptor d : catalog) {
      byProducer.put(d.producer(), d.servingEndpoint().dottedName());
      byPool.put(d.poolId(), d.servingEndpoint().dottedName());
    }
    LoadWindowWatch.Latest<KvPoolLoadUpdate> p = sampler.poolLoad().latest();
    PoolWindow pool = null;
    if (p != null) {
      KvPoolLoadUpdate w = p.window();
      List<PoolCoverage> rows = new ArrayList<>();
      for (KvPoolLoadEntry e : w.pools()) {
        rows.add(new PoolCoverage(endpoint(e.producer(), byProducer, byPool), e.producer().producerIncarnation(),
            e.producer().layoutGeneration(), e.kvObservedRanks(), e.kvExpectedRanks(), coverage(e),
            e.kvUsedBlocks(), e.totalKvBlocks()));
      }
      rows.sort(Comparator.comparing(PoolCoverage::endpoint));
      pool = new PoolWindow(w.windowSequence(), w.observedMs(), w.windowMs(), p.receivedAtMillis(),
          nowMs - w.observedMs(), rows);
    }
    LoadWindowWatch.Latest<ServingLoadUpdate> s = sampler.servingLoad().latest();
    ServingWindow serving = null;
    if (s != null) {
      ServingLoadUpdate w = s.window();
      List<ServingPool> pools = new ArrayList<>();
      for (PoolServingLoad x : w.pools()) {
        pools.add(new ServingPool(endpoint(x.producer(), byProducer, byPool), x.load().status().name(),
            boxed(x.load().tokens().activePrefillTokens()), boxed(x.load().tokens().activeDecodeBlocks()),
            boxed(x.deployment().liveWorkers())));
      }
      pools.sort(Comparator.comparing(ServingPool::endpoint));
      List<ServingModel> models = new ArrayList<>();
      for (ModelServingLoad m : w.models()) {
        models.add(new ServingModel(m.namespace(), m.canonicalModelId(), m.load().status().name(),
            m.deployment().expectedFrontends(), m.deployment().observedFrontends(),
            m.deployment().servingPools().size()));
      }
      models.sort(Comparator.comparing(ServingModel::namespace).thenComparing(ServingModel::model));
      serving = new ServingWindow(w.windowSequence(), w.observedMs(), s.receivedAtMillis(), nowMs - w.observedMs(),
          pools, models);
    }
    return new StatusLoadWindows(pool, sampler.poolLoad().state(), serving, sampler.servingLoad().state());
  }

  private static String endpoint(ProducerIdentity producer, Map<ProducerIdentity, String> byProducer,
      Map<KvPoolId, String> byPool) {
    String e = byProducer.get(producer);
    if (e == null) {
      e = byPool.get(producer.poolId());
    }
    return e == null ? producer.poolId().toString() : e;
  }

  private static @Nullable Long boxed(OptionalLong v) {
    return v.isPresent() ? v.getAsLong() : null;
  }
}
