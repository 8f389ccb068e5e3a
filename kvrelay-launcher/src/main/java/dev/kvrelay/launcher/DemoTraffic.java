package dev.kvrelay.launcher;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (one daemon thread runs the steps; the counters are atomic; the workers are thread-safe): the serving
 * demo's never-ending worker traffic — every {@link #PERIOD_MS} ms one rank of one simulated worker caches a prompt
 * or evicts one, so the relay keeps publishing CBI1 deltas to its subscribers for as long as the demo runs.
 *
 * <p>A rank caches conversations: a prompt from a small fixed set (its first one or two blocks, shared by every
 * rank and worker that uses the prompt) followed by one to four blocks of one of {@link #CONVERSATIONS} turns of
 * it, so nearly every cache step stores new blocks. An eviction takes the rank's oldest remembered conversation
 * (it remembers at most {@link #REMEMBERED}, evicting when full) and removes its own blocks, leaves first, keeping
 * the shared prompt blocks; once a worker holds more than {@link #HIGH_WATER_BLOCKS} blocks it only evicts until it
 * is back under. So nearly every step changes the pool's filter and the relay publishes about one delta per step.
 * The random choices come from a fixed seed, so every run plays the same script.
 */
final class DemoTraffic implements AutoCloseable {
  /** The interval between two steps. */
  static final long PERIOD_MS = 200;
  /** Above this many cached blocks a worker only evicts. */
  static final int HIGH_WATER_BLOCKS = 64;
  /** Conversation turns per prompt. */
  static final int CONVERSATIONS = 32;
  /** Conversations a rank remembers for eviction. */
  static final int REMEMBERED = 24;

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
  /** Per worker, per rank: the conversations cached last, oldest first (the stepping thread only). */
  private final List<List<ArrayDeque<Cached>>> remembered = new ArrayList<>();

  /**
   * Immutable (its token array is never written after construction): one cached conversation and how many of its
   * leading blocks are the shared prompt.
   */
  private static final class Cached {
    private final int[] tokens;
    private final int sharedBlocks;

    Cached(int[] tokens, int sharedBlocks) {
      this.tokens = tokens;
      this.sharedBlocks = sharedBlocks;
    }

    int[] tokens() {
      return tokens;
    }

    int sharedBlocks() {
      return sharedBlocks;
    }
  }

  /** Traffic over {@code workers}; nothing happens before {@link #start()}. */
  DemoTraffic(List<DemoWorker> workers) {
    if (workers.isEmpty()) {
      throw new IllegalArgumentException("the demo traffic needs at least one worker");
    }
    this.workers = List.copyOf(workers);
    for (DemoWorker w : this.workers) {
      List<ArrayDeque<Cached>> ranks = new ArrayList<>();
      for (int r = 0; r < w.rankCount(); r++) {
        ranks.add(new ArrayDeque<>(REMEMBERED));
      }
      remembered.add(ranks);
    }
  }

  /** Starts the steps, the first after one period. */
  void start() {
    // The future is not needed: stepSafely() logs a failure (which ends the steps), and close() stops the timer.
    ScheduledFuture<?> unused =
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

  /** One step (one thread only — the timer's, or a test's for an instance it did not start). */
  void step() {
    int w = random.nextInt(workers.size());
    DemoWorker worker = workers.get(w);
    int rank = random.nextInt(worker.rankCount());
    ArrayDeque<Cached> mine = remembered.get(w).get(rank);
    boolean evict = worker.cachedBlocks() > HIGH_WATER_BLOCKS || mine.size() == REMEMBERED
        || random.nextInt(3) == 0;
    if (evict && !mine.isEmpty()) {
      Cached oldest = mine.pollFirst();
      removed.addAndGet(worker.evict(rank, oldest.tokens(), oldest.sharedBlocks()));
      return;
    }
    String prompt = PROMPTS.get(random.nextInt(PROMPTS.size()));
    int shared = 1 + random.nextInt(2);
    int[] tokens = concat(EmbeddedDemo.tokens(prompt, shared * EmbeddedDemo.BLOCK_SIZE),
        EmbeddedDemo.tokens(prompt + " #" + random.nextInt(CONVERSATIONS),
            (1 + random.nextInt(4)) * EmbeddedDemo.BLOCK_SIZE));
    int added = worker.cache(rank, tokens);
    stored.addAndGet(added);
    if (added > 0) {
      mine.addLast(new Cached(tokens, shared)); // a full memory evicts first (above), so this stays ≤ REMEMBERED
    }
  }

  private static int[] concat(int[] a, int[] b) {
    int[] all = new int[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
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
