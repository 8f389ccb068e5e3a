package dev.kvrelay.launcher.system;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.WireSources;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe: the status page's short history — per pool, a ring of the last {@link #CAPACITY} rates of applied
 * events per second, of published CBI1 sequence advances per second and of the largest subscriber lag (deltas
 * published to a pool subscriber and not yet taken, {@link RelayEngineStats.SubscriberLag#sequenceLag()}), sampled
 * from one
 * {@code engine.stats()} read every {@link #PERIOD_MS} ms on one daemon thread this object owns (closed with the
 * system server); the same read feeds the {@link RecentErrors} ring (counter increases between two samples, and
 * the sources file's and WAN listener's last errors). Every access to the rings holds this object's monitor (the
 * error ring holds its own).
 *
 * <p>The sampler also owns the page's two load-window watches ({@link LoadWindowWatch}, subscriber id {@link
 * #WATCH_ID}, one on the pool-load and one on the serving-load stream), polled without waiting every {@link
 * #WATCH_PERIOD_MS} ms on the same thread and closed with it. They are real subscribers: each counts toward its
 * stream's subscriber limit and gauges.
 */
final class StatusSampler implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StatusSampler.class);

  /** Samples kept per pool and series. */
  static final int CAPACITY = 60;
  /** The sampling period. */
  static final long PERIOD_MS = 1_000;
  /** The subscriber id of the page's load-window watches. */
  static final String WATCH_ID = "kvrelay-status";
  /** How often the load-window watches are polled (a window ring of 16 covers windows of 7 ms and more). */
  static final long WATCH_PERIOD_MS = 100;

  private final RelayEngine engine;
  private final RelayProcessInfo info;
  private final RecentErrors errors = new RecentErrors();
  private final ScheduledExecutorService scheduler;
  private final LoadWindowWatch<KvPoolLoadUpdate> poolLoad;
  private final LoadWindowWatch<ServingLoadUpdate> servingLoad;
  private final Map<String, Series> series = new HashMap<>();
  private long lastSampleNanos;
  private boolean sampled;

  /** Starts sampling {@code engine} (and the last errors of {@code info}'s sources and WAN status). */
  StatusSampler(RelayEngine engine, RelayProcessInfo info) {
    this.engine = engine;
    this.info = info;
    this.poolLoad = new LoadWindowWatch<>(WATCH_ID, WireSources.of(engine)::watchPoolLoad);
    this.servingLoad = new LoadWindowWatch<>(WATCH_ID, WireSources.of(engine)::watchServingLoad);
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kvrelay-status-sampler");
      t.setDaemon(true);
      return t;
    });
    // The futures are not needed: both tasks log their own failures, and close() stops the scheduler.
    ScheduledFuture<?> unusedSample =
        scheduler.scheduleWithFixedDelay(this::sampleSafely, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    ScheduledFuture<?> unusedPoll =
        scheduler.scheduleWithFixedDelay(this::pollWatchesSafely, 0, WATCH_PERIOD_MS, TimeUnit.MILLISECONDS);
  }

  /** The page's pool-load watch. */
  LoadWindowWatch<KvPoolLoadUpdate> poolLoad() {
    return poolLoad;
  }

  /** The page's serving-load watch. */
  LoadWindowWatch<ServingLoadUpdate> servingLoad() {
    return servingLoad;
  }

  private void pollWatchesSafely() {
    try {
      long now = System.currentTimeMillis();
      poolLoad.poll(now);
      servingLoad.poll(now);
    } catch (RuntimeException e) {
      LOG.warn("status sampler: polling the load-window watches failed", e);
    }
  }

  /** The history of {@code pool} (its serving endpoint, dotted) now: oldest first; empty when never sampled. */
  synchronized History history(String pool) {
    Series s = series.get(pool);
    return s == null ? History.EMPTY : new History(s.events.values(), s.sequence.values(), s.lag.values());
  }

  /** The recent errors ring this sampler feeds. */
  RecentErrors errors() {
    return errors;
  }

  private void sampleSafely() {
    try {
      sample(System.nanoTime());
    } catch (RuntimeException e) {
      LOG.warn("status sampler: reading the engine's stats failed", e);
    }
  }

  /** One sample at {@code nanos} (monotonic); only the scheduler thread calls it. */
  private void sample(long nanos) {
    RelayEngineStats stats = engine.stats();
    long wall = System.currentTimeMillis();
    Map<KvPoolId, Long> maxLag = new HashMap<>();
    for (RelayEngineStats.SubscriberLag l : stats.hubs().subscribers()) {
      maxLag.merge(l.pool(), l.sequenceLag(), (x, y) -> Long.compareUnsigned(x, y) >= 0 ? x : y);
    }
    Map<String, long[]> now = new HashMap<>();
    Set<String> scopes = new HashSet<>();
    scopes.add(StatusCounters.RELAY);
    errors.observe(wall, StatusCounters.RELAY, StatusCounters.relay(stats));
    for (PoolStats p : stats.pools()) {
      String scope = StatusCounters.poolScope(p);
      scopes.add(scope);
      errors.observe(wall, scope, StatusCounters.pool(p));
      PoolStats.Actor a = p.actor();
      if (a != null) {
        now.put(p.descriptor().servingEndpoint().dottedName(), new long[] {a.appliedEvents(),
            a.producer().lastSequence(), maxLag.getOrDefault(p.descriptor().poolId(), 0L)});
      }
    }
    errors.retainScopes(scopes);
    errors.observeMessage(wall, "sources", "lastError", info.sources().get().lastError());
    errors.observeMessage(wall, "wan", "lastError", info.wan().get().lastError());
    synchronized (this) {
      series.keySet().retainAll(now.keySet());
      for (Map.Entry<String, long[]> e : now.entrySet()) {
        Series s = series.get(e.getKey());
        if (s == null) {
          // A pool that appeared since the last sample applied all its events in that interval.
          s = new Series();
          if (sampled) {
            s.baseline(lastSampleNanos, 0, e.getValue()[1]);
          }
          series.put(e.getKey(), s);
        }
        s.add(nanos, e.getValue()[0], e.getValue()[1], e.getValue()[2]);
      }
      lastSampleNanos = nanos;
      sampled = true;
    }
  }

  /** Stops the sampling thread and closes the load-window watches. Idempotent. */
  @Override
  public void close() {
    scheduler.shutdownNow();
    poolLoad.close();
    servingLoad.close();
  }

  /** Immutable: one pool's rates, oldest first (every array is copied in and out). */
  static final class History {
    static final History EMPTY = new History(new double[0], new double[0], new double[0]);

    private final double[] eventsPerSecond;
    private final double[] sequencePerSecond;
    private final double[] maxLag;

    /**
     * A history of copies of the given samples.
     *
     * @param eventsPerSecond applied events per second between consecutive samples
     * @param sequencePerSecond published-sequence advance per second between consecutive samples
     * @param maxLag the largest subscriber sequence lag of the pool at each sample (0 without subscribers)
     */
    History(double[] eventsPerSecond, double[] sequencePerSecond, double[] maxLag) {
      this.eventsPerSecond = eventsPerSecond.clone();
      this.sequencePerSecond = sequencePerSecond.clone();
      this.maxLag = maxLag.clone();
    }

    /** The largest subscriber sequence lag at each sample, oldest first (a copy). */
    double[] maxLag() {
      return maxLag.clone();
    }

    /** Applied events per second between consecutive samples, oldest first (a copy). */
    double[] eventsPerSecond() {
      return eventsPerSecond.clone();
    }

    /** Published-sequence advance per second between consecutive samples, oldest first (a copy). */
    double[] sequencePerSecond() {
      return sequencePerSecond.clone();
    }

    /** The latest events/s, 0 without two samples. */
    double lastEventsPerSecond() {
      return eventsPerSecond.length == 0 ? 0 : eventsPerSecond[eventsPerSecond.length - 1];
    }

    /** The latest sequence/s, 0 without two samples. */
    double lastSequencePerSecond() {
      return sequencePerSecond.length == 0 ? 0 : sequencePerSecond[sequencePerSecond.length - 1];
    }
  }

  /** Not thread-safe: confined to the sampler's monitor; one pool's previous sample and rings. */
  private static final class Series {
    private final Ring events = new Ring();
    private final Ring sequence = new Ring();
    private final Ring lag = new Ring();
    private long lastNanos;
    private long lastEvents;
    private long lastSequence;
    private boolean started;

    void baseline(long nanos, long applied, long seq) {
      started = true;
      lastNanos = nanos;
      lastEvents = applied;
      lastSequence = seq;
    }

    void add(long nanos, long applied, long seq, long maxLag) {
      // u64 lag as a double: exact far beyond any real lag
      lag.add(maxLag >= 0 ? maxLag : maxLag + 0x1p64);
      if (started && nanos > lastNanos) {
        double secs = (nanos - lastNanos) / 1e9;
        events.add(Math.max(0, applied - lastEvents) / secs);
        // sequences are unsigned 64-bit; the difference of two close values is exact in long arithmetic
        sequence.add(Math.max(0, seq - lastSequence) / secs);
      }
      started = true;
      lastNanos = nanos;
      lastEvents = applied;
      lastSequence = seq;
    }
  }

  /** Not thread-safe: confined to the sampler's monitor; a fixed ring of {@link #CAPACITY} doubles. */
  private static final class Ring {
    private final double[] values = new double[CAPACITY];
    private int next;
    private int size;

    void add(double v) {
      values[next] = v;
      next = (next + 1) % CAPACITY;
      size = Math.min(size + 1, CAPACITY);
    }

    double[] values() {
      double[] out = new double[size];
      for (int i = 0; i < size; i++) {
        out[i] = values[(next - size + i + CAPACITY) % CAPACITY];
      }
      return out;
    }
  }
}
