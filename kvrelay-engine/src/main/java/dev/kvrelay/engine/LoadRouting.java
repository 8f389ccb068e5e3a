package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHost.LOG;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.load.LoadWindowException;
import dev.kvrelay.engine.load.LoadWindows;
import dev.kvrelay.engine.load.ObserveOutcome;
import dev.kvrelay.engine.load.PoolLoadReport;
import dev.kvrelay.engine.load.PoolLoadSnapshot;
import dev.kvrelay.engine.load.ServingLoadWindows;
import dev.kvrelay.engine.load.ServingPoolInput;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Confined to the engine's control task: the load side of the relay host: it applies kv_metrics observations to
 * each pool generation's load aggregator and builds the pool-load and serving-load windows (wan-grpc.md §4) every
 * {@code load_window_ms}, handing them to the engine's {@link LoadPublisher}.
 */
final class LoadRouting {
  private final HostCounters counters;
  private final ControlTask control;
  private final LongSupplier epochMillis;
  private final long windowMs;
  private final LoadWindows loadWindows;
  private final ServingLoadWindows servingLoadWindows;
  /** Set when the load publisher failed: the ticker is stopped for good (wan-grpc.md §4.1, C33). */
  private boolean stopped;
  /** The load ticker, once started (written once by the thread that starts the engine). */
  private volatile @Nullable ScheduledFuture<?> ticker;

  /**
   * Builds the startup windows (sequence 0) at {@code nowMs}.
   *
   * @throws LoadWindowException if the startup windows cannot be built
   */
  LoadRouting(HostCounters counters, ControlTask control, LongSupplier epochMillis, long windowMs, long nowMs)
      throws LoadWindowException {
    this.counters = counters;
    this.control = control;
    this.epochMillis = epochMillis;
    this.windowMs = windowMs;
    this.loadWindows = new LoadWindows(windowMs);
    loadWindows.initial(nowMs, List.of());
    this.servingLoadWindows = new ServingLoadWindows(windowMs);
    servingLoadWindows.initial(nowMs);
  }

  /** The startup pool-load window (sequence 0). */
  KvPoolLoadUpdate initialLoadWindow() {
    return loadWindows.current().orElseThrow();
  }

  /** The startup serving-load window (sequence 0). */
  ServingLoadUpdate initialServingLoadWindow() {
    return servingLoadWindows.current().orElseThrow();
  }

  /**
   * Starts the load ticker: {@code tick} runs on the control task every {@code load_window_ms}, the first time after
   * one window. Called once, by the thread that starts the engine.
   */
  void startTicker(Runnable tick) {
    ticker = control.every(windowMs, tick);
  }

  /** Applies one kv_metrics report to {@code runtime}'s aggregator (ignored once the generation is retired). */
  void observe(PoolRuntime runtime, EventEnvelope envelope, ActiveLoad load) {
    if (runtime.retired) {
      return;
    }
    counters.loadObservations.increment();
    if (runtime.load.observe(envelope, load, epochMillis.getAsLong()) != ObserveOutcome.APPLIED) {
      counters.loadRejected.increment();
    }
  }

  /**
   * Builds the next pool-load and serving-load windows of {@code runtimes} (every active generation) and hands them
   * to {@code publisher}.
   * The first ticked window is sequence 1 (the startup window is 0). A publisher error (or the window sequence space
   * running out) stops the ticker for good, so no later window is ever published and the broadcasts keep the last
   * good one as current; it then terminates the engine (wan-grpc.md §4.1: the transport supervisor cancels the
   * relay), unless the engine is already closing, in which case the error is swallowed (counted, logged at debug).
   */
  void tick(List<PoolRuntime> runtimes, LoadPublisher publisher) {
    if (stopped) {
      return;
    }
    long now = epochMillis.getAsLong();
    List<PoolLoadReport> reports = new ArrayList<>();
    TreeMap<KvPoolId, PoolRuntime> sorted = new TreeMap<>();
    for (PoolRuntime r : runtimes) {
      sorted.put(r.poolId(), r);
    }
    List<ServingPoolInput> serving = new ArrayList<>();
    for (PoolRuntime r : sorted.values()) {
      PoolLoadSnapshot snapshot = r.load.snapshot(now);
      reports.add(new PoolLoadReport(r.producer(), snapshot));
      // Every catalog pool is an active runtime (and the reverse), so this is the §4.2 "every catalog pool" list.
      serving.add(new ServingPoolInput(r.descriptor, r.runtimeConfigs, snapshot));
    }
    try {
      publisher.poolLoad(loadWindows.next(now, reports));
      publisher.servingLoad(servingLoadWindows.next(now, serving));
    } catch (LoadWindowException | RuntimeException e) {
      publisherFailed(e);
    }
  }

  private void publisherFailed(Exception e) {
    stopped = true;
    counters.loadPublishErrors.increment();
    ScheduledFuture<?> t = ticker;
    if (t != null) {
      t.cancel(false);
    }
    if (control.closing()) {
      LOG.debug("load publisher error after shutdown began; ignored: {}", e.toString());
      return;
    }
    control.fail(new IllegalStateException("load publisher failed: " + e.getMessage(), e));
  }
}
