package dev.kvrelay.launcher.system;

import dev.kvrelay.engine.PoolStats;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.stats.PoolActorStats;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe: the status page's short history — per pool, a ring of the last {@link #CAPACITY} rates of applied
 * events per second and of published CBI1 sequence advances per second, sampled from {@code engine.stats()} every
 * {@link #PERIOD_MS} ms on one daemon thread this object owns (closed with the system server). Every access to the
 * rings holds this object's monitor.
 */
final class StatusSampler implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(StatusSampler.class.getName());

  /** Samples kept per pool and series. */
  static final int CAPACITY = 60;
  /** The sampling period. */
  static final long PERIOD_MS = 1_000;

  private final RelayEngine engine;
  private final ScheduledExecutorService scheduler;
  private final Map<String, Series> series = new HashMap<>();
  private long lastSampleNanos;
  private boolean sampled;

  /** Starts sampling {@code engine}. */
  StatusSampler(RelayEngine engine) {
    this.engine = engine;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kvrelay-status-sampler");
      t.setDaemon(true);
      return t;
    });
    scheduler.scheduleWithFixedDelay(this::sampleSafely, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
  }

  /** The history of {@code pool} (its serving endpoint, dotted) now: oldest first; empty when never sampled. */
  synchronized History history(String pool) {
    Series s = series.get(pool);
    return s == null ? History.EMPTY : new History(s.events.values(), s.sequence.values());
  }

  private void sampleSafely() {
    try {
      sample(System.nanoTime());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "status sampler: reading the engine's stats failed", e);
    }
  }

  /** One sample at {@code nanos} (monotonic); only the scheduler thread calls it. */
  private void sample(long nanos) {
    Map<String, long[]> now = new HashMap<>();
    for (PoolStats p : engine.stats().pools()) {
      PoolActorStats a = p.actor();
      if (a != null) {
        now.put(p.descriptor().servingEndpoint().dottedName(),
            new long[] {a.appliedEvents(), a.producer().lastSequence()});
      }
    }
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
        s.add(nanos, e.getValue()[0], e.getValue()[1]);
      }
      lastSampleNanos = nanos;
      sampled = true;
    }
  }

  /** Stops the sampling thread. Idempotent. */
  @Override
  public void close() {
    scheduler.shutdownNow();
  }

  /**
   * Immutable: one pool's rates, oldest first.
   *
   * @param eventsPerSecond applied events per second between consecutive samples
   * @param sequencePerSecond published-sequence advance per second between consecutive samples
   */
  record History(double[] eventsPerSecond, double[] sequencePerSecond) {
    static final History EMPTY = new History(new double[0], new double[0]);

    History {
      eventsPerSecond = eventsPerSecond.clone();
      sequencePerSecond = sequencePerSecond.clone();
    }

    @Override
    public double[] eventsPerSecond() {
      return eventsPerSecond.clone();
    }

    @Override
    public double[] sequencePerSecond() {
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

    void add(long nanos, long applied, long seq) {
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
