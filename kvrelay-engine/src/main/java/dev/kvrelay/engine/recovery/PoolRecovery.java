package dev.kvrelay.engine.recovery;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: every public method may be called from any thread and never blocks; all recovery state
 * is confined to the pool actor's serial task, which runs this recovery as its ingest stage ({@link #onActor}; live
 * events reach it through a lock-free bounded inbox, everything else through a control queue). Per-source recovery
 * of one pool (producer.md §3.6, runtime-inputs.md §6.3).
 *
 * <p>Per bound source (one {@link SourceBinding}, i.e. one publisher incarnation of a {@code (worker,
 * rank)}) it keeps an event-id cursor. Live events: unknown publisher ⇒ dropped; other member than the
 * binding ⇒ dropped; at or below the cursor ⇒ stale, dropped; contiguous ⇒ {@link PoolCommand.Apply};
 * first event without cursor ⇒ buffered and a full restore started; gap ⇒ buffered and an incremental
 * recovery from {@code cursor + 1} started; while recovering ⇒ buffered (bounded, oldest dropped). A live
 * all-domain {@code cleared} newer than the cursor is a barrier (see {@link #onLiveEvent}).
 *
 * <p>Decisions (pinned in {@code PoolRecoveryTest}, tests named {@code decision…}):
 * <ul>
 *   <li>Query endpoint: {@code target.queryEndpoint(worker, rank)} (per-rank name, decision (b)).
 *   <li>{@code TreeDumpFailed}: keep state and cursor and retry while retries remain; once exhausted reset the
 *       rank as degraded.
 *   <li>Backoff: 200 ms × 2 per retry, 8 retries; any {@code reset_scope} is whole-rank.
 *   <li>Exhaustion for any other failure kind also resets the rank as degraded
 *       ({@code ResetRank(member, true)}), discards the buffer and forgets the cursor: the next live
 *       event starts a new full restore with a fresh retry budget.
 *   <li>Barrier: the all-domain {@code cleared} (device tier, no residency domain) is applied as the rank's
 *       reset; any in-flight attempt, pending replacement and buffer of the rank are invalidated and the
 *       cursor becomes the cleared event's id; no query is needed.
 *   <li>The initial wave (recoverable sources of the first {@link #updateSources} call) starts its full
 *       restores at once, without waiting for a live event; a source bound later starts on its first event, or
 *       at once if events of its publisher already arrived before its advertisement (they were dropped as
 *       unknown-publisher events; discovery and the event plane are independent).
 *   <li>Event-plane faults ({@link #onPlaneFault}): a {@code SequenceGap}, a {@code NewPublisher} of a source that
 *       already has a cursor, {@code MessagesDropped} and {@code Reconnected} start an incremental recovery from
 *       {@code cursor + 1} (a full restore without a cursor) of the source(s) concerned; a {@code
 *       SequenceRegression}, or a {@code NewPublisher} seen from sequence 0 by a source with a cursor (the publisher
 *       id reused by a restarted process), a full restore. Such a fault-started query (a "probe") that finds nothing
 *       after the cursor ({@code Events} empty or {@code TooNew} with the worker's newest id equal to the cursor) is
 *       a success: no message was lost. A fault during a recovery queues one more probe after it. Live-only sources
 *       are reset. {@code Disconnected} marks every bound source suspect until it recovered after the reconnect.
 * </ul>
 *
 * <p>This class is the entry point; the work is split by job, each job confined to the serial task: {@link
 * RecoveryTask} (the task, its inbox and control queue), {@link CursorRules} (live events), {@link RecoveryQueries}
 * (queries, answers, retries), {@link ReplacementBatches} (the batch window and the initial wave), {@link
 * SourceLifecycle} (bindings, resets, the actor's reports) and {@link PlaneFaults} (event-plane faults), wired by
 * {@link RecoveryParts}.
 */
public final class PoolRecovery implements AutoCloseable {
  /** How long a delivery thread waits for room in a full inbox before the event is dropped (and counted). */
  static final long INBOX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final KvPoolId pool;
  private final RecoveryParts parts;
  private final RecoveryTask task;
  private final Counters counters;

  /**
   * A recovery for {@code pool} run as {@code actor}'s ingest stage (the engine's wiring): its cursor rules run in
   * the actor's serial task, which drains this recovery's inbox and applies each contiguous event at once ({@link
   * PoolActor#runInline}); the inbox is the one queue between a delivery thread and the pool's single writer, and an
   * event's member is checked once, here (counted {@code memberMismatch}). Backpressure: a full inbox parks the
   * delivery thread (bounded), then drops and counts.
   *
   * @param requests the request-plane client, or {@code null}: then every source is treated as live-only
   * @param relayQueryPermits the relay-wide query permits (16), shared by every pool's recovery
   * @param scheduler the actor's scheduler (the recovery's timers post to its task)
   * @param nanoTime the monotonic clock of the batch window (the scheduler's time base)
   */
  public static PoolRecovery onActor(KvPoolId pool, RecoverySettings settings, PoolActor actor,
      @Nullable RequestPlaneClient requests, Semaphore relayQueryPermits, ActorScheduler scheduler,
      LongSupplier nanoTime) {
    return onActor(pool, settings, actor, requests, relayQueryPermits, scheduler, nanoTime, INBOX_WAIT_NANOS);
  }

  /** As {@link #onActor(KvPoolId, RecoverySettings, PoolActor, RequestPlaneClient, Semaphore, ActorScheduler,
   * LongSupplier)}, with the delivery thread's bounded wait for inbox room (tests). */
  static PoolRecovery onActor(KvPoolId pool, RecoverySettings settings, PoolActor actor,
      @Nullable RequestPlaneClient requests, Semaphore relayQueryPermits, ActorScheduler scheduler,
      LongSupplier nanoTime, long inboxWaitNanos) {
    return onActor(pool, settings, actor, requests, relayQueryPermits, scheduler, nanoTime, inboxWaitNanos,
        UnaryOperator.identity());
  }

  /**
   * As above, with {@code tap} wrapped around the actor's inline commands (tests: it sees every command the stage
   * runs, in order, and may refuse or fail one as the actor or a bug would; it runs in the actor's task).
   */
  static PoolRecovery onActor(KvPoolId pool, RecoverySettings settings, PoolActor actor,
      @Nullable RequestPlaneClient requests, Semaphore relayQueryPermits, ActorScheduler scheduler,
      LongSupplier nanoTime, long inboxWaitNanos, UnaryOperator<Function<PoolCommand, SubmitResult>> tap) {
    Objects.requireNonNull(actor, "actor");
    return new PoolRecovery(pool, settings, tap.apply(actor::runInline), requests, relayQueryPermits, scheduler,
        nanoTime, inboxWaitNanos, actor);
  }

  private PoolRecovery(KvPoolId pool, RecoverySettings settings, Function<PoolCommand, SubmitResult> actor,
      @Nullable RequestPlaneClient requests, Semaphore relayQueryPermits, ActorScheduler scheduler,
      LongSupplier nanoTime, long inboxWaitNanos, PoolActor host) {
    this.pool = Objects.requireNonNull(pool, "pool");
    this.parts = new RecoveryParts(pool, Objects.requireNonNull(settings, "settings"),
        Objects.requireNonNull(actor, "actor"), requests,
        Objects.requireNonNull(relayQueryPermits, "relayQueryPermits"), Objects.requireNonNull(scheduler, "scheduler"),
        Objects.requireNonNull(nanoTime, "nanoTime"), inboxWaitNanos, host);
    this.task = parts.task;
    this.counters = parts.counters;
  }

  /** The pool this recovery feeds. */
  public KvPoolId pool() {
    return pool;
  }

  /**
   * The complete current set of bound sources (from KV-source advertisements). A source that is gone,
   * whose publisher id or recovery target changed, or whose member is bound more than once (or whose
   * publisher id is bound to two members: ambiguous) gets {@code ResetRank(member, false)} before a new
   * incarnation is activated (a rejected reset fences the member, buffering its events, until a retried
   * reset succeeds). The initial wave is the recoverable sources of the first call.
   */
  public void updateSources(Collection<SourceBinding> sources) {
    List<SourceBinding> copy = List.copyOf(sources);
    task.post(() -> parts.lifecycle.applySources(copy));
  }

  /**
   * A live {@code kv-events} message (any thread; typically the event-plane delivery thread). Does not allocate:
   * the pair goes into a bounded lock-free inbox, which the actor's task drains as fast as it applies the events.
   * Backpressure: a full inbox (the actor is behind) makes the delivery thread wait (parked, at most {@link
   * #INBOX_WAIT_NANOS}); only then is the event dropped and counted in {@code inboxOverflows} (the rank sees a gap
   * and recovers).
   */
  public void onLiveEvent(EventEnvelope envelope, RouterEvent event) {
    task.offerLive(envelope, event);
  }

  /** Delivery-thread waits for room in a full inbox (backpressure), for tests and diagnostics. */
  long backpressureWaits() {
    return counters.get(Counter.BACKPRESSURE_WAITS);
  }

  /**
   * The pool actor reported a source protocol fault (disposition RejectSource, producer.md §3.5) for {@code
   * member} published by {@code publisherId}: that source becomes ineligible until its identity changes (a new
   * publisher is bound); its later events are dropped and counted, its in-flight recovery is abandoned. The
   * state it already contributed stays. A stale report (another publisher) is ignored. Any thread.
   */
  public void rejectSource(MemberId member, long publisherId) {
    task.post(() -> parts.lifecycle.reject(member, publisherId));
  }

  /**
   * The pool actor could not apply an event of {@code member} for lack of resources (disposition
   * ReportResourceFailure, producer.md §3.5): the source's state is now incomplete, so a recoverable source restores
   * in full from the worker and a live-only one is reset and re-learned. A stale report is ignored. Any thread.
   */
  public void resync(MemberId member, long publisherId) {
    task.post(() -> parts.lifecycle.resync(member, publisherId));
  }

  /**
   * An event-plane fault of the {@code kv-events} subscription feeding this recovery (runtime-inputs §6.3,
   * producer.md §3.6): counted by kind at once, then acted on in the serial task, in order with the other control
   * work (see the class decisions). A sequence fault of a publisher that is not bound is remembered like its dropped
   * events: binding it later restores at once. Any thread; never blocks.
   */
  public void onPlaneFault(EventPlaneFault fault) {
    Objects.requireNonNull(fault, "fault");
    counters.fault(EventPlaneFaultKind.of(fault));
    task.post(() -> parts.faults.apply(fault));
  }

  /**
   * A snapshot of the counters and of every bound source (read from values the serial task publishes as they change:
   * no lock, nothing posted to the task). Any thread.
   */
  public PoolStats.Recovery stats() {
    return counters.snapshot(parts.lifecycle.sourceStats(parts.nanoTime.getAsLong()));
  }

  /** Stops timers and in-flight queries (their late answers are ignored); releases held query permits. Idempotent. */
  @Override
  public void close() {
    task.stop();
    for (Attempt a : parts.inFlight) {
      a.release();
    }
    task.discardControl();
  }
}
