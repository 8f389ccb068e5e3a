package dev.kvrelay.engine.recovery;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.SerialTask;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (lock-free; nothing blocks but the bounded wait of a delivery thread on a full inbox): the serial task
 * of one pool's recovery on its {@link ActorScheduler}. Live events reach it through a bounded lock-free inbox, all
 * other work (control, timers, answers) through a control queue; the runs are a {@link SerialTask} (at most one at a
 * time, no lost wake-up), so whatever they run is confined to it.
 *
 * <p>Two hosts: attached to the pool actor ({@link PoolActor#attachStage}, the engine's wiring), the runs are the
 * actor's own task, so the inbox is the only queue between a delivery thread and the pool's single writer and its
 * events are applied at once ({@link PoolActor#runInline}); standalone (a {@link PoolCommandSink} that is not a
 * stage), the task is a {@link SerialTask} of its own and an inbox event stays there while the sink has no room.
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
  private final PoolCommandSink actor;
  private final Counters counters;
  private final long inboxWaitNanos;
  private final Inbound inbound;
  /** Confined to the serial task: re-feeds events held for lack of actor room; false while one must still wait. */
  private final BooleanSupplier releaseHeld;
  private final LiveInbox inbox = new LiveInbox(INBOX_CAPACITY);
  private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();
  /** The actor whose task runs this one's batches ({@link #runAttached}), or null: a {@link SerialTask} of its own. */
  private final @Nullable PoolActor host;
  /** Asks for a run: the own task's signal, or the actor's. */
  private final Runnable signal;
  /** One callback object, handed to the actor on every wait for room: signals the task. */
  private final Runnable onRoom = this::kick;
  private volatile boolean closed;

  RecoveryTask(KvPoolId pool, ActorScheduler scheduler, PoolCommandSink actor, Counters counters, long inboxWaitNanos,
      Inbound inbound, BooleanSupplier releaseHeld, @Nullable PoolActor host) {
    this.pool = pool;
    this.scheduler = scheduler;
    this.actor = actor;
    this.counters = counters;
    this.inboxWaitNanos = inboxWaitNanos;
    this.inbound = inbound;
    this.releaseHeld = releaseHeld;
    this.host = host;
    if (host == null) {
      SerialTask own = new SerialTask(scheduler, this::run, e -> {
        counters.add(Counter.TASK_FAILURES);
        LOG.error("pool recovery {}: task failed", pool, e);
      });
      this.signal = own::signal;
    } else {
      this.signal = host.stageSignal();
    }
  }

  /**
   * Starts the runs once the recovery's jobs are wired (attached: from now on the actor's task runs this recovery's
   * batches). Called once, by the constructing thread, before the task is reachable from any other thread.
   */
  void start() {
    if (host != null) {
      host.attachStage(this::runAttached);
    }
  }

  /** What the actor runs once it has room for an event held back: wakes this task. Any thread. */
  Runnable onRoom() {
    return onRoom;
  }

  /**
   * The actor already had room when asked: signals the task, so that (signalled while it runs) one more run follows
   * and re-feeds the held events. Serial task.
   */
  void signalRoom() {
    kick();
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

  /** One run as the actor's ingest stage: as {@link #run}, with a failure counted like one of the own task. */
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
   * Every other way to stop leaves no work unannounced: each {@link #post}, {@link #offerLive} and room wake-up
   * ({@link #onRoom()}, {@link #signalRoom()}) signals the task, and a signal while a run is under way causes one
   * more run ({@link SerialTask}), so work queued after this run looked is picked up by the next one.
   */
  private boolean run() {
    int budget = MAX_ITEMS_PER_RUN;
    for (; budget > 0 && !closed; budget--) {
      Runnable c = control.poll();
      try {
        if (c != null) {
          c.run();
          continue;
        }
        if (!releaseHeld.getAsBoolean()) {
          break; // events held in a source's buffer go first; the actor wakes this task once it has room
        }
        RouterEvent next = inbox.peekEvent();
        if (next == null) {
          break;
        }
        if (!actor.roomFor(next, onRoom)) {
          break; // backpressure: the event stays in the inbox until the actor wakes this task
        }
        inbox.poll();
        inbound.accept(inbox.envelope(), inbox.event());
      } catch (RuntimeException e) {
        // Caught per item (not by the task's handler) so that the rest of the batch still runs.
        counters.add(Counter.TASK_FAILURES);
        LOG.error("pool recovery {}: task failed", pool, e);
      }
    }
    return budget == 0 && !closed;
  }
}
