package dev.kvrelay.launcher;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (one daemon thread runs the steps; the counters are atomic; the workers are thread-safe): the serving
 * demo's never-ending worker traffic — every {@link #PERIOD_MS} ms one rank of one simulated worker caches a prompt
 * or evicts one, so the relay keeps publishing CBI1 deltas to its subscribers for as long as the demo runs.
 *
 * <p>A rank caches whole prompts from a small fixed set (shared prefixes, so different workers overlap) and evicts
 * leaves first; once a worker holds more than {@link #HIGH_WATER_BLOCKS} blocks it only evicts until it is back
 * under. The random choices come from a fixed seed, so every run plays the same script.
 */
final class DemoTraffic implements AutoCloseable {
  /** The interval between two steps. */
  static final long PERIOD_MS = 200;
  /** Above this many cached blocks a worker only evicts. */
  static final int HIGH_WATER_BLOCKS = 64;

  private static final Logger LOG = LoggerFactory.getLogger(DemoTraffic.class);
  private static final List<String> PROMPTS = List.of("system prompt", "system prompt: summarize",
      "system prompt: translate", "another chat", "another chat: follow-up", "code review", "code review: diff");

  private final List<DemoWorker> workers;
  private final SplittableRandom random = new SplittableRandom(0x5EED_DE40L);
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "kvrelay-demo-traffic");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong stored = new AtomicLong();
  private final AtomicLong removed = new AtomicLong();

  /** Traffic over {@code workers}; nothing happens before {@link #start()}. */
  DemoTraffic(List<DemoWorker> workers) {
    if (workers.isEmpty()) {
      throw new IllegalArgumentException("the demo traffic needs at least one worker");
    }
    this.workers = List.copyOf(workers);
  }

  /** Starts the steps, the first after one period. */
  void start() {
    timer.scheduleWithFixedDelay(this::stepSafely, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
  }

  /** Blocks stored so far over all workers. */
  long storedBlocks() {
    return stored.get();
  }

  /** Blocks removed so far over all workers. */
  long removedBlocks() {
    return removed.get();
  }

  private void stepSafely() {
    try {
      step();
    } catch (RuntimeException e) {
      LOG.error("demo traffic step failed; the traffic stops", e);
      throw e;
    }
  }

  /** One step (the timer thread only, so the random source is confined to it). */
  void step() {
    DemoWorker worker = workers.get(random.nextInt(workers.size()));
    int rank = random.nextInt(worker.rankCount());
    String prompt = PROMPTS.get(random.nextInt(PROMPTS.size()));
    int[] tokens = EmbeddedDemo.tokens(prompt, (2 + random.nextInt(6)) * EmbeddedDemo.BLOCK_SIZE);
    boolean evict = worker.cachedBlocks() > HIGH_WATER_BLOCKS || random.nextInt(3) == 0;
    if (evict) {
      removed.addAndGet(worker.evict(rank, tokens, random.nextInt(3)));
    } else {
      stored.addAndGet(worker.cache(rank, tokens));
    }
  }

  /** Stops the steps; waits up to 5 s for a running one. */
  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
