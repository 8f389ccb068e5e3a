package dev.kvrelay.engine.load;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.WireText;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the control task. Builds the serving-load windows of wan-grpc.md §4.2 with the
 * window mechanics of §4.1: the startup window has {@code window_sequence} 0 and is empty (the aggregate starts
 * empty), each later window is one complete snapshot with sequence + 1; the caller drives the ticks and passes
 * the clock in. Pure and deterministic.
 *
 * <p>Projection of the inputs (one {@link ServingPoolInput} per catalog pool):
 *
 * <ul>
 *   <li>Pools: <b>every</b> input pool, sorted by pool id. The view is the pool's router-scheduler aggregate
 *       ({@link SchedulerLoad}, decision (A) of §4.2, already applied by {@link PoolLoadAggregator}): status,
 *       gauges iff COMPLETE, oldest contributing {@code published_at}; no request stats. Deployment: {@code
 *       live_workers} = workers with runtime configs (unset when none), {@code max_concurrency} per {@link
 *       PoolDeploymentStatus#of}.
 *   <li>Models: one entry per {@code (namespace of the serving endpoint, canonical model id)} over every
 *       registration of every pool, sorted by namespace then model (code-point order, which is UTF-8 byte
 *       order); {@code serving_pools} = the pools registering that model in that namespace, unique and sorted
 *       by pool id.
 *   <li><b>Frontend inputs are not wired.</b> The discovery and event-plane SPIs have no frontend-load subject
 *       in this build, so there is nothing to receive, count or drop: every model reports {@code
 *       expected_frontends = observed_frontends = ready_frontends = 0} and hence UNAVAILABLE, request totals 0,
 *       request gauges unset, token totals 0 and token gauges unset. When a frontend-load subject exists, its
 *       per-frontend totals fold in here.
 * </ul>
 */
public final class ServingLoadWindows {

  /** Immutable: one model of a window, {@code (namespace, canonical model id)}. */
  private record ModelKey(String namespace, String canonicalModelId) {}

  /** Code-point order of {@code (namespace, canonical model id)}. */
  private static final Comparator<ModelKey> MODEL_ORDER =
      Comparator.comparing(ModelKey::namespace, WireText.CODE_POINT_ORDER)
          .thenComparing(ModelKey::canonicalModelId, WireText.CODE_POINT_ORDER);

  /** The view of every model while frontend inputs are not wired (see the class comment). */
  static final ServingLoadView MODEL_VIEW_WITHOUT_FRONTENDS = new ServingLoadView(
      Optional.of(new RequestLifecycleStats(0, 0, 0, 0, OptionalLong.empty(), OptionalLong.empty())),
      TokenLoadStats.forModel(OptionalLong.empty(), OptionalLong.empty(), 0, 0),
      DataStatus.UNAVAILABLE,
      0);

  private final long windowMs;
  private @Nullable ServingLoadUpdate current;

  /** @param windowMs the configured window ({@code load_window_ms}, u64) */
  public ServingLoadWindows(long windowMs) {
    this.windowMs = windowMs;
  }

  /** Resumes after {@code current} (tests: sequence exhaustion). */
  ServingLoadWindows(long windowMs, ServingLoadUpdate current) {
    this.windowMs = windowMs;
    this.current = current;
  }

  /**
   * The startup window: sequence 0, no pools, no models (wan-grpc.md §4.2, "the initial window is empty").
   *
   * @throws LoadWindowException {@code ALREADY_STARTED} if called twice
   */
  public ServingLoadUpdate initial(long nowMs) throws LoadWindowException {
    if (current != null) {
      throw new LoadWindowException(
          LoadWindowException.Reason.ALREADY_STARTED, "initial serving-load window already built");
    }
    ServingLoadUpdate window = new ServingLoadUpdate(0, nowMs, windowMs, List.of(), List.of());
    current = window;
    return window;
  }

  /**
   * The next complete snapshot of {@code pools} (one input per catalog pool), sequence + 1.
   *
   * @throws LoadWindowException {@code NOT_STARTED} before {@link #initial}, {@code SEQUENCE_EXHAUSTED}
   *     after the window with sequence u64 max, {@code DUPLICATE_POOL} if two inputs share a pool id; the state
   *     is unchanged
   */
  public ServingLoadUpdate next(long nowMs, List<ServingPoolInput> pools) throws LoadWindowException {
    ServingLoadUpdate last = current;
    if (last == null) {
      throw new LoadWindowException(
          LoadWindowException.Reason.NOT_STARTED, "no initial serving-load window");
    }
    if (last.windowSequence() == -1L) {
      throw new LoadWindowException(
          LoadWindowException.Reason.SEQUENCE_EXHAUSTED, "serving-load window sequence exhausted");
    }
    ServingLoadUpdate window = project(last.windowSequence() + 1, nowMs, windowMs, pools);
    current = window;
    return window;
  }

  /** The latest window, if any (what a new subscriber receives first). */
  public Optional<ServingLoadUpdate> current() {
    return Optional.ofNullable(current);
  }

  /** The window with {@code sequence} for {@code pools}; pure. */
  static ServingLoadUpdate project(long sequence, long nowMs, long windowMs, List<ServingPoolInput> pools)
      throws LoadWindowException {
    List<ServingPoolInput> sorted = new ArrayList<>(pools);
    sorted.sort(Comparator.comparing(input -> input.descriptor().poolId()));
    List<PoolServingLoad> poolEntries = new ArrayList<>(sorted.size());
    Map<ModelKey, TreeSet<KvPoolId>> modelPools = new TreeMap<>(MODEL_ORDER);
    for (int i = 0; i < sorted.size(); i++) {
      ServingPoolInput input = sorted.get(i);
      KvPoolDescriptor descriptor = input.descriptor();
      if (i > 0 && sorted.get(i - 1).descriptor().poolId().equals(descriptor.poolId())) {
        throw new LoadWindowException(
            LoadWindowException.Reason.DUPLICATE_POOL, "duplicate pool " + descriptor.poolId());
      }
      poolEntries.add(new PoolServingLoad(descriptor.producer(), viewOf(input.load().scheduler()),
          PoolDeploymentStatus.of(input.runtimeConfigs().values())));
      String namespace = descriptor.servingEndpoint().namespace();
      for (ModelRegistration registration : descriptor.registrations()) {
        modelPools
            .computeIfAbsent(new ModelKey(namespace, registration.canonicalModelId()),
                k -> new TreeSet<>())
            .add(descriptor.poolId());
      }
    }
    List<ModelServingLoad> modelEntries = new ArrayList<>(modelPools.size());
    for (Map.Entry<ModelKey, TreeSet<KvPoolId>> e : modelPools.entrySet()) {
      modelEntries.add(new ModelServingLoad(e.getKey().namespace(), e.getKey().canonicalModelId(),
          MODEL_VIEW_WITHOUT_FRONTENDS, new ModelDeploymentStatus(0, 0, 0, new ArrayList<>(e.getValue()))));
    }
    return new ServingLoadUpdate(sequence, nowMs, windowMs, poolEntries, modelEntries);
  }

  /** The view of a pool's scheduler aggregate: status, gauges and source time of {@code scheduler}. */
  private static ServingLoadView viewOf(SchedulerLoad scheduler) {
    return new ServingLoadView(Optional.empty(),
        TokenLoadStats.forPool(scheduler.activePrefillTokens(), scheduler.activeDecodeBlocks()), scheduler.status(),
        scheduler.sourceObservedMs());
  }
}
