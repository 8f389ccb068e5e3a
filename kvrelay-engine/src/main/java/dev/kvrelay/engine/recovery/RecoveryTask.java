package dev.kvrelay.engine.recovery;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (lock-free; nothing blocks but the bounded wait of a delivery thread on a full inbox): one pool's
 * recovery as its actor's ingest stage ({@link PoolActor#attachStage}). Live events reach it through a bounded
 * lock-free inbox, all other work (control, timers, answers) through a control queue; the actor's serial task runs
 * one batch of both after each of its mailbox batches, so whatever the batches run is confined to that task, the
 * inbox is the only queue between a delivery thread and the pool's single writer, and its events are applied at once
 * ({@link PoolActor#runInline}).
 */
final class RecoveryTask {
  private static final Logger LOG = LoggerFactory.getLogger(PoolRecovery.class);
  private static final int INBOX_CAPACITY = 4096;
  private static final int MAX_ITEMS_PER_RUN = 1024;
  private static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  /** Confined to the serial task: what it does with one live event taken from the inbox. */
  @FunctionalInterface
  interface Inbound {
    void accept(EventEnvelope envelope, RouterEvent event);
  }

  private final KvPoolId pool;
  private final ActorScheduler scheduler;
  private final Counters counters;
  private final long inboxWaitNanos;
  private final Inbound inbound;
  private final LiveInbox inbox = new LiveInbox(INBOX_CAPACITY);
  private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();
  /** The actor whose task runs this one's batches ({@link #runAttached}). */
  private final PoolActor host;
  /** Asks the actor's task for a run. */
  private final Runnable signal;
  private volatile boolean closed;

  RecoveryTask(KvPoolId pool, ActorScheduler scheduler, Counters counters, long inboxWaitNanos, Inbound inbound,
      PoolActor host) {
    this.pool = pool;
    this.scheduler = scheduler;
    this.counters = counters;
    this.inboxWaitNanos = inboxWaitNanos;
    this.inbound = inbound;
    this.host = host;
    this.signal = host.stageSignal();
  }

  /**
   * Attaches this task's batches to the actor once the recovery's jobs are wired (from now on the actor's task runs
   * them). Called once, by the constructing thread, before the task is reachable from any other thread.
   */
  void start() {
    host.attachStage(this::runAttached);
  }

  /** True once {@link #stop()} ran. Any thread. */
  boolean closed() {
    return closed;
  }

  /**
   * Puts a live event into the inbox (no allocation); on a full inbox the calling thread waits for room (parked, at
   * most the inbox wait), then the event is dropped and counted in {@code inboxOverflows}. Any thread.
   */
  void offerLive(EventEnvelope envelope, RouterEvent event) {
    if (closed) {
      return;
    }
    if (!inbox.offer(envelope, event) && !offerWaiting(envelope, event)) {
      counters.add(Counter.INBOX_OVERFLOWS);
      return;
    }
    kick();
  }

  /** The bounded wait of a delivery thread for room in the inbox; false if it timed out or the recovery closed. */
  private boolean offerWaiting(EventEnvelope envelope, RouterEvent event) {
    counters.add(Counter.BACKPRESSURE_WAITS);
    kick();
    long deadline = System.nanoTime() + inboxWaitNanos;
    long park = 1_000;
    while (!closed) {
      if (inbox.offer(envelope, event)) {
        return true;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      LockSupport.parkNanos(Math.min(left, park));
      park = Math.min(MAX_PARK_NANOS, park * 2);
    }
    return false;
  }

  /** Runs {@code task} on the serial task, after the control work already queued. Any thread. */
  void post(Runnable task) {
    if (closed) {
      return;
    }
    control.add(task);
    kick();
  }

  /** Posts {@code task} after {@code delayNanos} (none once closed). Any thread. */
  void timer(long delayNanos, Runnable task) {
    if (closed) {
      return;
    }
    scheduler.schedule(() -> post(task), Math.max(0, delayNanos));
  }

  /** No more runs, posts or timers. Any thread; idempotent. */
  void stop() {
    closed = true;
  }

  /** Drops the control work still queued. Any thread. */
  void discardControl() {
    control.clear();
  }

  private void kick() {
    signal.run();
  }

  /** One run as the actor's ingest stage: {@link #run}, with a failure that escapes it counted and logged. */
  private boolean runAttached() {
    try {
      return run();
    } catch (RuntimeException e) {
      counters.add(Counter.TASK_FAILURES);
      LOG.error("pool recovery {}: task failed", pool, e);
      return false;
    }
  }

  /**
   * One run: at most {@code MAX_ITEMS_PER_RUN} items; true if the budget ran out (the task yields and runs again).
   * Every other way to stop leaves no work unannounced: each {@link #post} and {@link #offerLive} signals the actor's
   * task, and a signal while a run is under way causes one more run ({@link dev.kvrelay.engine.actor.SerialTask}),
   * so work queued after this run looked is picked up by the next one.
   */
  private boolean run() {
    int budget = MAX_ITEMS_PER_RUN;
    for (; budget > 0 && !closed; budget--) {
      try {
        Runnable c = control.poll();
        if (c != null) {
          c.run();
        } else if (inbox.poll()) {
          inbound.accept(inbox.envelope(), inbox.event());
        } else {
          break;
        }
      } catch (RuntimeException e) {
        // Caught per item (not by the task's handler) so that the rest of the batch still runs.
        counters.add(Counter.TASK_FAILURES);
        LOG.error("pool recovery {}: task failed", pool, e);
      }
    }
    return budget == 0 && !closed;
  }
}
