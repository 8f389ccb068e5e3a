package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (its state, the {@link ClusterCache} and the {@link WatchFanout} are confined to one state thread;
 * the other methods post to it): the list-and-watch supervision of one {@link KubernetesDiscovery}. It lists both
 * resources, opens the cluster watches at the listed versions, applies their events to the cache and recomputes a
 * debounce later; a lost watch breaks the session, is reported as {@code WATCH_INTERRUPTED} and is followed by
 * relists (doubling delays) until one succeeds and ends in a resync.
 *
 * <p>Every failure of a background task is counted in {@link KubeCounters}: lost watches ({@code
 * watchInterruptions}), failed relists ({@code relistFailures}), tasks that threw ({@code taskFailures}) and cluster
 * watches whose close threw ({@code watchCloseFailures}).
 */
final class ClusterSession {
  // The backend's logger: operators configure one name for the whole backend.
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesDiscovery.class);

  private final KubeApi api;
  private final KubernetesDiscoveryOptions options;
  private final KubeCounters counters;
  private final AtomicBoolean closed;
  private final ScheduledExecutorService state;

  // ---- confined to the state thread ----
  private final WatchFanout fanout = new WatchFanout();
  private final ClusterCache cache;
  private @Nullable Watch readinessWatch;
  private @Nullable Watch crWatch;
  private int readinessGen;
  private int crGen;
  private boolean resyncScheduled;
  private boolean recomputeScheduled;
  private boolean sessionLive;
  private boolean resyncPending;
  private long retryDelayMs;

  /** A session on a new daemon state thread named {@code threadName}; {@code closed} is the backend's flag. */
  ClusterSession(KubeApi api, KubernetesDiscoveryOptions options, KubeCounters counters, AtomicBoolean closed,
      String threadName) {
    this.api = api;
    this.options = options;
    this.counters = counters;
    this.closed = closed;
    this.cache = new ClusterCache(options.mode(), api.namespace(), api.serialization(), counters,
        e -> fanout.reportToStarted(e));
    this.state = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  private String namespace() {
    return api.namespace();
  }

  /**
   * The first list (synchronously), which also opens the cluster watches.
   *
   * @throws ExecutionException with the list's failure as cause
   */
  void open() throws ExecutionException, InterruptedException {
    Future<String> listed = state.submit(() -> {
      relist();
      return cache.crs().size() + " CRs, " + fanout.recordCount() + " records";
    });
    String summary = listed.get();
    LOG.info("kubernetes discovery started: namespace {}, mode {}, {}", namespace(), options.mode(), summary);
  }

  /**
   * Adds a watch on the state thread and relists before its snapshot, so that it holds every write acknowledged
   * before the call (the caches may lag by a debounce and by events in flight); existing watches get the diff as
   * usual. The running cluster watches go on (closing and reopening them per new watch would be wasteful).
   *
   * @throws RejectedExecutionException if the session is closed
   */
  Future<?> addWatch(KubeWatch w) {
    return state.submit(() -> {
      fanout.add(w);
      try {
        relist();
      } catch (RuntimeException e) {
        fanout.remove(w);
        counters.relistFailures.incrementAndGet();
        sessionBroken("a relist for a new watch failed: " + KubeErrors.describe(e), null, "relist");
        throw e;
      }
    });
  }

  /** Forgets a closed watch (on the state thread; dropped once the session is closed). */
  void removeWatch(KubeWatch w) {
    post(() -> fanout.remove(w));
  }

  /** Runs {@code task} on the state thread (a task that throws is counted and logged); dropped once closed. */
  private void post(Runnable task) {
    try {
      state.execute(guarded(task));
    } catch (RejectedExecutionException e) {
      // closed: nothing more happens
    }
  }

  private void schedule(Runnable task, long delayMs) {
    try {
      // The future is not needed: the guarded task counts and logs what it throws (else kept in a future nobody
      // reads), and close() ends the executor.
      ScheduledFuture<?> unused = state.schedule(guarded(task), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        counters.taskFailures.incrementAndGet();
        LOG.warn("kubernetes discovery task in namespace {} threw; it is dropped", namespace(), e);
      }
    };
  }

  // ---------------------------------------------------------------- state thread

  /**
   * Lists both resources, replaces the caches, (re)opens the watches that are not running at the listed
   * versions and recomputes (a resync for every watch if one was lost).
   *
   * <p>A watch that kept running across the list may still deliver events older than the list; replaying an
   * ordered suffix of one object's events over a newer snapshot converges to the same state, and an event
   * whose numeric resource version is below the cached object's is skipped ({@link ClusterCache#isStale}).
   */
  private void relist() {
    String readinessVersion = options.mode() == ReadinessMode.POD
        ? cache.replaceSlices(api.slices().list())
        : cache.replacePods(api.pods().list());
    GenericKubernetesResourceList crList = api.crs().list();
    String crVersion = cache.replaceCrs(crList);
    counters.relists.incrementAndGet();

    if (readinessWatch == null) {
      int gen = ++readinessGen;
      readinessWatch = options.mode() == ReadinessMode.POD
          ? api.slices().watch(at(readinessVersion), new Forwarder<EndpointSlice>(gen, true, "EndpointSlice",
              cache::onSlice))
          : api.pods().watch(at(readinessVersion), new Forwarder<Pod>(gen, true, "Pod", cache::onPod));
    }
    if (crWatch == null) {
      int gen = ++crGen;
      crWatch = api.crs().watch(at(crVersion),
          new Forwarder<GenericKubernetesResource>(gen, false, WorkerMetadataResource.KIND, cache::onCr));
    }
    sessionLive = true;
    recompute();
  }

  private static ListOptions at(@Nullable String resourceVersion) {
    return new ListOptionsBuilder().withResourceVersion(resourceVersion).withAllowWatchBookmarks(true).build();
  }

  /** Thread-safe: forwards one cluster watch's callbacks to the state thread, tagged with its generation. */
  private final class Forwarder<T> implements Watcher<T> {
    private final int gen;
    private final boolean readiness;
    private final String what;
    private final BiConsumer<Action, T> apply;

    Forwarder(int gen, boolean readiness, String what, BiConsumer<Action, T> apply) {
      this.gen = gen;
      this.readiness = readiness;
      this.what = what;
      this.apply = apply;
    }

    private boolean current() {
      return !closed.get() && gen == (readiness ? readinessGen : crGen);
    }

    @Override
    public void eventReceived(Action action, T resource) {
      if (action == Action.BOOKMARK || action == Action.ERROR) {
        return; // fabric8 8 handles an ERROR event itself: its Status ends the stream, reported through onClose
      }
      post(() -> {
        if (current()) {
          apply.accept(action, resource);
          scheduleRecompute();
        }
      });
    }

    @Override
    public void onClose(WatcherException cause) {
      post(() -> {
        if (current()) {
          watchLost(readiness, what, cause);
        }
      });
    }

    @Override
    public void onClose() {
      // closed by this backend (close())
    }

    @Override
    public boolean reconnecting() {
      return false;
    }
  }

  private void watchLost(boolean readiness, String what, @Nullable WatcherException cause) {
    if (readiness) {
      readinessGen++; // its late events are ignored from now on
      closeQuietly(readinessWatch);
      readinessWatch = null;
    } else {
      crGen++;
      closeQuietly(crWatch);
      crWatch = null;
    }
    counters.watchInterruptions.incrementAndGet();
    boolean gone = cause != null && cause.isHttpGone();
    if (gone) {
      counters.goneRelists.incrementAndGet();
    }
    sessionBroken(gone ? "410 Gone (resource version expired)" : KubeErrors.describe(cause), cause, what);
  }

  /** Reports the interruption to every watch and schedules the relist that ends with a resync. */
  private void sessionBroken(String why, @Nullable Throwable cause, String what) {
    sessionLive = false;
    LOG.warn("kubernetes discovery lost its {} watch in namespace {}: {}; relisting", what, namespace(), why);
    fanout.reportToStarted(new DiscoveryException(DiscoveryException.Kind.WATCH_INTERRUPTED,
        "the " + what + " watch was lost (" + why + "); relisting", cause));
    resyncPending = true;
    if (!resyncScheduled) {
      resyncScheduled = true;
      retryDelayMs = options.retryMin().toMillis();
      schedule(this::resyncAttempt, cause instanceof WatcherException watcherException && watcherException.isHttpGone()
          ? 0 : retryDelayMs);
    }
  }

  private void resyncAttempt() {
    resyncScheduled = false;
    if (closed.get() || (sessionLive && !resyncPending)) {
      return;
    }
    try {
      relist();
      LOG.info("kubernetes discovery relisted namespace {}: {} CRs, {} records", namespace(), cache.crs().size(),
          fanout.recordCount());
    } catch (RuntimeException e) {
      sessionLive = false;
      counters.relistFailures.incrementAndGet();
      retryDelayMs = Math.min(Math.max(1, retryDelayMs * 2), options.retryMax().toMillis());
      LOG.warn("kubernetes discovery relist in namespace {} failed ({}); retrying in {} ms", namespace(),
          KubeErrors.describe(e), retryDelayMs);
      resyncScheduled = true;
      schedule(this::resyncAttempt, retryDelayMs);
    }
  }

  private void stopClusterWatches() {
    readinessGen++;
    crGen++;
    closeQuietly(readinessWatch);
    closeQuietly(crWatch);
    readinessWatch = null;
    crWatch = null;
  }

  private void closeQuietly(@Nullable Watch w) {
    if (w == null) {
      return;
    }
    try {
      w.close();
    } catch (RuntimeException e) {
      counters.watchCloseFailures.incrementAndGet();
      LOG.debug("closing a cluster watch failed", e);
    }
  }

  private void scheduleRecompute() {
    if (recomputeScheduled) {
      return;
    }
    recomputeScheduled = true;
    schedule(() -> {
      recomputeScheduled = false;
      if (!closed.get() && sessionLive) { // a broken session's caches are stale: the relist recomputes
        recompute();
      }
    }, options.debounce().toMillis());
  }

  /** Joins, then brings every watch up to date (a resync after a relist, else per-key diffs). */
  private void recompute() {
    MembershipJoin.Result r = cache.join();
    boolean resync = resyncPending;
    resyncPending = false;
    fanout.publish(r.records(), cache.crs(), resync);
  }

  // ---------------------------------------------------------------- shutdown

  /**
   * Stops the cluster watches, closes every watch and ends the state thread (the backend's {@code closed} flag is
   * already set, so nothing new starts).
   */
  void close() {
    Future<List<KubeWatch>> stopped;
    try {
      stopped = state.submit(() -> {
        stopClusterWatches();
        return fanout.watches();
      });
    } catch (RejectedExecutionException e) {
      stopped = null;
    }
    List<KubeWatch> toClose = List.of();
    if (stopped != null) {
      try {
        toClose = stopped.get(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        LOG.warn("kubernetes discovery did not stop its watches cleanly", e);
      }
    }
    for (KubeWatch w : toClose) {
      w.close();
    }
    state.shutdownNow();
  }
}
