package dev.kvrelay.engine.recovery;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.producer.CkfOutcome;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.RankReplacement;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.stats.EventPlaneFaultKind;
import dev.kvrelay.engine.stats.QueryFailureKind;
import dev.kvrelay.engine.stats.RecoveryStats;
import dev.kvrelay.engine.stats.SourceRecoveryState;
import dev.kvrelay.engine.stats.SourceRecoveryStats;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: every public method may be called from any thread and never blocks; all recovery state
 * is confined to one serial task on the given {@link ActorScheduler} (live events reach it through a
 * lock-free bounded inbox, everything else through a control queue). Per-source recovery of one pool
 * (producer.md §3.6, runtime-inputs.md §6.3).
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
 */
public final class PoolRecovery implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PoolRecovery.class);
  private static final int INBOX_CAPACITY = 4096;
  private static final int MAX_ITEMS_PER_RUN = 1024;
  /** Unknown publishers remembered so that binding them later triggers an immediate restore. */
  private static final int UNKNOWN_PUBLISHER_MEMORY = 1024;
  /** How long a delivery thread waits for room in a full inbox before the event is dropped (and counted). */
  static final long INBOX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private final KvPoolId pool;
  private final RecoverySettings settings;
  private final PoolCommandSink actor;
  private final @Nullable RequestPlaneClient requests;
  private final Semaphore permits;
  private final ActorScheduler scheduler;
  private final LongSupplier nanoTime;
  private final Counters counters = new Counters();
  private final LiveInbox inbox = new LiveInbox(INBOX_CAPACITY);
  private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final Runnable runTask = this::run;
  /** Set by the actor when room freed for an event held back; read after the task's hand-off flag drops. */
  private volatile boolean roomSignalled;
  private final long inboxWaitNanos;
  private final Runnable onRoom = () -> {
    roomSignalled = true;
    kick();
  };
  private final Set<Attempt> inFlight = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  // ---- serial-task state
  /** The bound sources; replaced (never mutated) by the serial task, read by {@link #stats()} from any thread. */
  private volatile Slot[] slots = new Slot[0];
  private final Map<MemberId, Slot> byMember = new HashMap<>();
  private boolean firstUpdate = true;
  private final Set<MemberId> initialWave = new HashSet<>();
  private final java.util.LinkedHashSet<Long> unknownPublishers = new java.util.LinkedHashSet<>();
  private boolean waveOpen;
  private final List<Slot> ready = new ArrayList<>();
  private long lastReadyNanos;
  private boolean quietArmed;
  private final Map<MemberId, PendingReset> pendingResets = new LinkedHashMap<>();
  private boolean resetRetryArmed;
  private final StoredBatch dumpBatch = new StoredBatch();

  /**
   * A recovery for {@code pool}.
   *
   * @param requests the request-plane client, or {@code null}: then every source is treated as live-only
   * @param relayQueryPermits the relay-wide query permits (16), shared by every pool's recovery
   * @param nanoTime the monotonic clock of the batch window (the scheduler's time base)
   */
  public PoolRecovery(KvPoolId pool, RecoverySettings settings, PoolCommandSink actor,
      @Nullable RequestPlaneClient requests, Semaphore relayQueryPermits, ActorScheduler scheduler,
      LongSupplier nanoTime) {
    this(pool, settings, actor, requests, relayQueryPermits, scheduler, nanoTime, INBOX_WAIT_NANOS);
  }

  /** As above, with the delivery thread's bounded wait for inbox room (tests). */
  PoolRecovery(KvPoolId pool, RecoverySettings settings, PoolCommandSink actor,
      @Nullable RequestPlaneClient requests, Semaphore relayQueryPermits, ActorScheduler scheduler,
      LongSupplier nanoTime, long inboxWaitNanos) {
    this.inboxWaitNanos = inboxWaitNanos;
    this.pool = Objects.requireNonNull(pool, "pool");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.actor = Objects.requireNonNull(actor, "actor");
    this.requests = requests;
    this.permits = Objects.requireNonNull(relayQueryPermits, "relayQueryPermits");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /** The pool this recovery feeds. */
  public KvPoolId pool() {
    return pool;
  }

  // ------------------------------------------------------------------ public entry points (any thread)

  /**
   * The complete current set of bound sources (from KV-source advertisements). A source that is gone,
   * whose publisher id or recovery target changed, or whose member is bound more than once (or whose
   * publisher id is bound to two members: ambiguous) gets {@code ResetRank(member, false)} before a new
   * incarnation is activated (a rejected reset fences the member, buffering its events, until a retried
   * reset succeeds). The initial wave is the recoverable sources of the first call.
   */
  public void updateSources(Collection<SourceBinding> sources) {
    List<SourceBinding> copy = List.copyOf(sources);
    post(() -> applySources(copy));
  }

  /**
   * A live {@code kv-events} message (any thread; typically the event-plane delivery thread). Does not allocate:
   * the pair goes into a bounded lock-free inbox. Backpressure: the serial task holds events in the inbox while the
   * pool actor has no room ({@link PoolCommandSink#roomFor}), so a full inbox makes the delivery thread wait (parked,
   * at most {@link #INBOX_WAIT_NANOS}); only then is the event dropped and counted in {@code inboxOverflows} (the
   * rank sees a gap and recovers).
   */
  public void onLiveEvent(EventEnvelope envelope, RouterEvent event) {
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
    post(() -> {
      Slot s = byMember.get(member);
      if (s != null && !s.rejected && s.binding.publisherId() == publisherId) {
        s.rejected = true;
        invalidate(s);
        s.phase = Phase.LIVE;
        initialWave.remove(s.member);
        counters.add(Counter.REJECTED_SOURCES);
        LOG.warn("pool {}: source {} publisher {} rejected after a protocol fault; ineligible until it changes", pool,
            member, Long.toUnsignedString(publisherId));
        maybeCloseWave();
      }
    });
  }

  /**
   * The pool actor could not apply an event of {@code member} for lack of resources (disposition
   * ReportResourceFailure, producer.md §3.5): the source's state is now incomplete, so a recoverable source restores
   * in full from the worker and a live-only one is reset and re-learned. A stale report is ignored. Any thread.
   */
  public void resync(MemberId member, long publisherId) {
    post(() -> {
      Slot s = byMember.get(member);
      if (s == null || s.rejected || s.binding.publisherId() != publisherId) {
        return;
      }
      counters.add(Counter.RESYNCS);
      invalidate(s);
      s.hasCursor = false;
      if (s.recoverable) {
        startRecovery(s, "pool actor resource failure");
      } else {
        s.phase = Phase.LIVE;
        resetRank(s.member, false, Counter.LIVE_ONLY_RESETS);
      }
    });
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
    post(() -> applyFault(fault));
  }

  /**
   * A snapshot of the counters and of every bound source (read from values the serial task publishes as they change:
   * no lock, nothing posted to the task). Any thread.
   */
  public RecoveryStats stats() {
    Slot[] bound = slots;
    long now = nanoTime.getAsLong();
    SourceRecoveryStats[] sources = new SourceRecoveryStats[bound.length];
    for (int i = 0; i < bound.length; i++) {
      sources[i] = bound[i].stats(now);
    }
    Arrays.sort(sources, SOURCE_ORDER);
    return counters.snapshot(Arrays.asList(sources));
  }

  private static final Comparator<SourceRecoveryStats> SOURCE_ORDER = (a, b) -> {
    int c = Long.compareUnsigned(a.workerId(), b.workerId());
    return c != 0 ? c : Integer.compareUnsigned(a.dpRank(), b.dpRank());
  };

  /** Stops timers and in-flight queries (their late answers are ignored); releases held query permits. Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (Attempt a : inFlight) {
      a.release();
    }
    control.clear();
  }

  // ------------------------------------------------------------------ serial task

  private void post(Runnable task) {
    if (closed) {
      return;
    }
    control.add(task);
    kick();
  }

  private void timer(long delayNanos, Runnable task) {
    if (closed) {
      return;
    }
    scheduler.schedule(() -> post(task), Math.max(0, delayNanos));
  }

  private void kick() {
    if (scheduled.compareAndSet(false, true)) {
      scheduler.execute(runTask);
    }
  }

  private void run() {
    roomSignalled = false;
    boolean held = false;
    try {
      for (int budget = MAX_ITEMS_PER_RUN; budget > 0 && !closed; budget--) {
        Runnable c = control.poll();
        try {
          if (c != null) {
            c.run();
            continue;
          }
          RouterEvent next = inbox.peekEvent();
          if (next == null) {
            break;
          }
          if (!actor.roomFor(next, onRoom)) {
            held = true; // backpressure: the event stays in the inbox until the actor wakes this task
            break;
          }
          inbox.poll();
          onInbound(inbox.envelope(), inbox.event());
        } catch (RuntimeException e) {
          LOG.error("pool recovery {}: task failed", pool, e);
        }
      }
    } finally {
      scheduled.set(false);
      if (!closed && (!control.isEmpty() || roomSignalled || (!held && inbox.hasNext()))) {
        kick();
      }
    }
  }

  private void onInbound(EventEnvelope envelope, RouterEvent event) {
    Slot s = find(envelope.publisherId());
    if (s == null) {
      counters.add(Counter.UNKNOWN_PUBLISHER);
      rememberUnknown(envelope.publisherId());
      return;
    }
    if (event.workerId() != s.member.workerId() || event.dpRank() != s.member.dpRank()) {
      counters.add(Counter.MEMBER_MISMATCH);
      return;
    }
    s.lastEventNanos = nanoTime.getAsLong();
    handle(s, event, false);
  }

  private @Nullable Slot find(long publisherId) {
    for (Slot s : slots) {
      if (s.binding.publisherId() == publisherId) {
        return s;
      }
    }
    return null;
  }

  /** The cursor rules for one event of {@code s} (live, or re-fed from the buffer). */
  private void handle(Slot s, RouterEvent ev, boolean fromBuffer) {
    if (s.rejected) {
      counters.add(Counter.REJECTED_SOURCE_EVENTS);
      return;
    }
    if (s.fenced) {
      buffer(s, ev, fromBuffer);
      return;
    }
    if (s.hasCursor && Long.compareUnsigned(ev.eventId(), s.cursor) <= 0) {
      counters.add(Counter.STALE);
      return;
    }
    if (isBarrier(ev)) {
      barrier(s, ev);
      return;
    }
    if (s.phase != Phase.LIVE) {
      buffer(s, ev, fromBuffer);
      return;
    }
    if (s.hasCursor && ev.eventId() == s.cursor + 1) {
      applyLive(s, ev);
      return;
    }
    if (s.hasCursor) {
      counters.add(Counter.GAPS);
    }
    if (!s.recoverable) {
      if (submit(new PoolCommand.ResetRank(s.member, false))) {
        counters.add(Counter.LIVE_ONLY_RESETS);
        s.countReset();
        applyLive(s, ev);
      }
      return;
    }
    buffer(s, ev, fromBuffer);
    startRecovery(s, s.hasCursor ? "event-id gap at " + Long.toUnsignedString(ev.eventId()) : "first event");
  }

  private static boolean isBarrier(RouterEvent ev) {
    return ev.data() instanceof KvEventData.Cleared
        && ev.residencyDomain().kind() == ResidencyDomain.Kind.ABSENT
        && ev.storageTier() == StorageTier.DEVICE;
  }

  private void barrier(Slot s, RouterEvent ev) {
    counters.add(Counter.BARRIERS);
    // Everything before the barrier is void; buffered events after it (a barrier re-fed from the buffer) stay.
    invalidateAttempt(s);
    EventBuffer pending = s.buffer;
    if (pending != null) {
      counters.add(Counter.DISCARDED, pending.removeUpTo(ev.eventId()));
    }
    s.phase = Phase.LIVE;
    if (applyLive(s, ev)) {
      initialWave.remove(s.member);
    } else if (s.recoverable) {
      buffer(s, ev, true);
      startRecovery(s, "barrier not applied");
    }
    maybeCloseWave();
  }

  /** Invalidates in-flight work of {@code s}: attempt, pending replacement, buffered events. */
  private void invalidate(Slot s) {
    invalidateAttempt(s);
    EventBuffer b = s.buffer;
    if (b != null) {
      counters.add(Counter.DISCARDED, b.clear());
    }
  }

  /** Invalidates the in-flight attempt and pending replacement of {@code s}, not its buffer. */
  private void invalidateAttempt(Slot s) {
    s.epoch++;
    s.attempt = null;
    s.replacement = null;
    s.retries = 0;
    ready.remove(s);
  }

  private boolean applyLive(Slot s, RouterEvent ev) {
    if (!submit(new PoolCommand.Apply(s.member, s.binding.publisherId(), ev))) {
      return false;
    }
    counters.add(Counter.APPLIED);
    s.cursor = ev.eventId();
    s.hasCursor = true;
    return true;
  }

  private boolean submit(PoolCommand command) {
    if (actor.submit(command).accepted()) {
      return true;
    }
    counters.add(Counter.SUBMIT_REJECTED);
    return false;
  }

  private void buffer(Slot s, RouterEvent ev, boolean again) {
    EventBuffer b = s.buffer;
    if (b == null) {
      b = new EventBuffer(settings.bufferCapacity());
      s.buffer = b;
    }
    if (b.add(ev)) {
      counters.add(Counter.BUFFER_OVERFLOWS);
    }
    if (!again) {
      counters.add(Counter.BUFFERED);
    }
  }

  /** Re-feeds the buffered events of {@code s} in order (skip ≤ cursor, apply cursor + 1, recover on a hole). */
  private void drain(Slot s) {
    EventBuffer b = s.buffer;
    if (b == null) {
      return;
    }
    // A barrier re-fed from the buffer may remove entries, so the size is checked on every step.
    for (int n = b.size(); n > 0 && b.size() > 0; n--) {
      handle(s, b.poll(), true);
    }
  }

  // ------------------------------------------------------------------ queries

  private void startRecovery(Slot s, String why) {
    s.phase = Phase.RECOVERING;
    s.retries = 0;
    s.epoch++;
    s.probe = false;
    if (s.recoverable && requests != null) {
      LOG.info("pool {}: recovery of {} (publisher {}) started: {} ({})", pool, s.member,
          Long.toUnsignedString(s.binding.publisherId()),
          s.hasCursor ? "incremental from " + Long.toUnsignedString(s.cursor + 1) : "full restore", why);
    }
    sendAttempt(s);
  }

  private void sendAttempt(Slot s) {
    RequestPlaneClient client = requests;
    RecoveryTarget target = s.binding.recoveryTarget().orElse(null);
    if (closed || client == null || target == null) {
      return;
    }
    if (!permits.tryAcquire()) {
      counters.add(Counter.PERMIT_WAITS);
      long epoch = s.epoch;
      timer(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()), () -> {
        if (!s.retired && s.epoch == epoch && s.phase == Phase.RECOVERING && s.attempt == null) {
          sendAttempt(s);
        }
      });
      return;
    }
    counters.add(Counter.QUERIES);
    Attempt a = new Attempt(s, s.epoch);
    inFlight.add(a);
    s.attempt = a;
    WorkerKvQueryRequest request = s.hasCursor
        ? WorkerKvQueryRequest.incremental(s.member.workerId(), s.member.dpRank(), s.cursor + 1)
        : WorkerKvQueryRequest.fullRestore(s.member.workerId(), s.member.dpRank());
    CompletionStage<WorkerKvQueryResponse> answer;
    try {
      answer = client.query(target, request, Duration.ofMillis(settings.attemptTimeoutMs()));
    } catch (RuntimeException e) {
      LOG.warn("pool recovery {}: request-plane client threw", pool, e);
      a.release();
      s.attempt = null;
      failAttempt(s, QueryFailureKind.PROTOCOL);
      return;
    }
    answer.whenComplete((response, error) -> {
      a.release();
      post(() -> onAnswer(a, response, error));
    });
    timer(TimeUnit.MILLISECONDS.toNanos(settings.attemptTimeoutMs()), () -> {
      a.release();
      if (s.attempt == a && !s.retired) {
        counters.add(Counter.TIMEOUTS);
        s.attempt = null;
        failAttempt(s, QueryFailureKind.TIMEOUT);
      }
    });
  }

  private void onAnswer(Attempt a, @Nullable WorkerKvQueryResponse response, @Nullable Throwable error) {
    Slot s = a.slot;
    if (s.retired || s.attempt != a || s.epoch != a.epoch) {
      counters.add(Counter.LATE_ANSWERS);
      return;
    }
    s.attempt = null;
    if (error != null || response == null) {
      Throwable cause = error;
      while ((cause instanceof CompletionException || cause instanceof ExecutionException)
          && cause.getCause() != null) {
        cause = cause.getCause();
      }
      QueryFailureKind kind = QueryFailureKind.PROTOCOL;
      if (cause instanceof RequestPlaneException rpe) {
        kind = switch (rpe.kind()) {
          case TIMEOUT -> QueryFailureKind.TIMEOUT;
          case UNREACHABLE -> QueryFailureKind.UNREACHABLE;
          case REJECTED -> QueryFailureKind.REJECTED;
          case PROTOCOL -> QueryFailureKind.PROTOCOL;
          case CLOSED -> QueryFailureKind.CLOSED;
        };
      }
      if (kind == QueryFailureKind.TIMEOUT) {
        counters.add(Counter.TIMEOUTS);
      }
      failAttempt(s, kind);
      return;
    }
    if (response instanceof WorkerKvQueryResponse.TreeDump td) {
      onTreeDump(s, td);
    } else if (response instanceof WorkerKvQueryResponse.Events ev) {
      onEvents(s, ev);
    } else if (response instanceof WorkerKvQueryResponse.TreeDumpFailed) {
      failAttempt(s, QueryFailureKind.TREE_DUMP_FAILED);
    } else if (response instanceof WorkerKvQueryResponse.TooNew tn) {
      if (s.probe && s.hasCursor && tn.newestAvailable() == s.cursor) {
        recovered(s, "nothing lost");
      } else {
        failAttempt(s, QueryFailureKind.TOO_NEW);
      }
    } else if (response instanceof WorkerKvQueryResponse.InvalidRange) {
      failAttempt(s, QueryFailureKind.INVALID_RANGE);
    } else {
      failAttempt(s, QueryFailureKind.WORKER_ERROR);
    }
  }

  private void onTreeDump(Slot s, WorkerKvQueryResponse.TreeDump td) {
    RankReplacement replacement = RankReplacement.forMember(s.member.workerId(), s.member.dpRank());
    for (RouterEvent e : td.events()) {
      if (!(e.data() instanceof KvEventData.Stored st) || e.workerId() != s.member.workerId()
          || e.dpRank() != s.member.dpRank() || !e.targetsPrimary() || !fold(replacement, e, st)) {
        counters.add(Counter.INVALID_TREE_DUMPS);
        failAttempt(s, QueryFailureKind.INVALID_TREE_DUMP);
        return;
      }
    }
    counters.add(Counter.TREE_DUMPS);
    s.replacement = replacement;
    s.replacementLast = td.lastEventId();
    s.dumpSize = td.events().size();
    s.phase = Phase.AWAITING_BATCH;
    ready.add(s);
    lastReadyNanos = nanoTime.getAsLong();
    scheduleBatch();
  }

  private boolean fold(RankReplacement replacement, RouterEvent e, KvEventData.Stored st) {
    StoredBatch b = dumpBatch.reset(e.workerId(), e.dpRank());
    st.parentHash().ifPresent(b::parent);
    st.startPosition().ifPresent(b::startPosition);
    for (StoredBlock blk : st.blocks()) {
      b.addBlock(blk.blockHash(), blk.tokensHash());
    }
    CkfOutcome outcome = replacement.pushStored(b);
    return outcome.isOk();
  }

  private void onEvents(Slot s, WorkerKvQueryResponse.Events answer) {
    if (s.hasCursor && Long.compareUnsigned(answer.lastEventId(), s.cursor) <= 0 && answer.events().isEmpty()) {
      if (s.probe && answer.lastEventId() == s.cursor) {
        // A fault-started probe: the worker has nothing after the cursor, so nothing was lost.
        recovered(s, "nothing lost");
        return;
      }
      // The worker has nothing after the cursor, yet a live event showed a gap: the answer cannot close it (for
      // example a new incarnation answering for the old one). Back off like any failed attempt instead of
      // re-querying at once; exhausted retries reset the rank.
      failAttempt(s, QueryFailureKind.TOO_NEW);
      return;
    }
    for (RouterEvent e : answer.events()) {
      if (e.workerId() != s.member.workerId() || e.dpRank() != s.member.dpRank()) {
        failAttempt(s, QueryFailureKind.INVALID_EVENTS);
        return;
      }
    }
    for (RouterEvent e : answer.events()) {
      if (s.hasCursor && Long.compareUnsigned(e.eventId(), s.cursor) <= 0) {
        counters.add(Counter.STALE);
        continue;
      }
      if (!applyLive(s, e)) {
        failAttempt(s, QueryFailureKind.SUBMIT_REJECTED);
        return;
      }
    }
    if (!s.hasCursor || Long.compareUnsigned(answer.lastEventId(), s.cursor) > 0) {
      s.cursor = answer.lastEventId();
      s.hasCursor = true;
    }
    recovered(s, answer.events().size() + " events");
  }

  private void recovered(Slot s, String how) {
    s.phase = Phase.LIVE;
    s.retries = 0;
    initialWave.remove(s.member);
    LOG.info("pool {}: recovery of {} succeeded ({}, cursor {})", pool, s.member, how,
        Long.toUnsignedString(s.cursor));
    if (s.suspect) {
      s.suspect = false;
      suspectGauge();
    }
    drain(s);
    if (s.reprobe) {
      boolean full = s.reprobeFull;
      s.reprobe = false;
      s.reprobeFull = false;
      if (s.phase == Phase.LIVE && !s.retired) {
        faultRecover(s, full, "fault during the previous recovery");
      }
    }
    maybeCloseWave();
  }

  private void failAttempt(Slot s, QueryFailureKind kind) {
    counters.fail(kind);
    s.attempt = null;
    s.phase = Phase.RECOVERING;
    if (s.retries < settings.maxRetries()) {
      s.retries++;
      counters.add(Counter.RETRIES);
      LOG.warn("pool {}: recovery attempt of {} failed ({}); retry {} of {} in {} ms", pool, s.member, kind,
          s.retries, settings.maxRetries(), settings.backoffMs(s.retries));
      long epoch = s.epoch;
      timer(TimeUnit.MILLISECONDS.toNanos(settings.backoffMs(s.retries)), () -> {
        if (!s.retired && s.epoch == epoch && s.phase == Phase.RECOVERING && s.attempt == null) {
          sendAttempt(s);
        }
      });
      return;
    }
    counters.add(Counter.EXHAUSTED);
    LOG.error("pool {}: recovery of {} failed ({}) after {} retries; resetting the rank as degraded", pool, s.member,
        kind, settings.maxRetries());
    invalidate(s);
    s.hasCursor = false;
    s.reprobe = false;
    s.reprobeFull = false;
    s.phase = Phase.LIVE;
    initialWave.remove(s.member);
    resetRank(s.member, true, Counter.DEGRADED_RESETS);
    maybeCloseWave();
  }

  // ------------------------------------------------------------------ replacement batches

  private void scheduleBatch() {
    if (waveOpen) {
      maybeCloseWave();
      if (waveOpen) {
        return;
      }
    }
    armQuiet(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()));
  }

  private void armQuiet(long delayNanos) {
    if (quietArmed) {
      return;
    }
    quietArmed = true;
    timer(delayNanos, this::quietFired);
  }

  private void quietFired() {
    quietArmed = false;
    if (ready.isEmpty() || waveOpen) {
      return;
    }
    long quiet = TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs());
    long since = nanoTime.getAsLong() - lastReadyNanos;
    if (since >= quiet) {
      flushBatch();
    } else {
      armQuiet(quiet - since);
    }
  }

  private void maybeCloseWave() {
    if (!waveOpen) {
      return;
    }
    for (MemberId m : initialWave) {
      Slot s = byMember.get(m);
      if (s != null && !s.retired && s.phase != Phase.AWAITING_BATCH) {
        return;
      }
    }
    waveOpen = false;
    initialWave.clear();
    if (!ready.isEmpty()) {
      armQuiet(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()));
    }
  }

  private void flushBatch() {
    List<Slot> batch = new ArrayList<>();
    List<RankReplacement> replacements = new ArrayList<>();
    for (Slot s : ready) {
      RankReplacement r = s.replacement;
      if (!s.retired && s.phase == Phase.AWAITING_BATCH && r != null) {
        batch.add(s);
        replacements.add(r);
      }
    }
    ready.clear();
    if (batch.isEmpty()) {
      return;
    }
    boolean accepted = submit(new PoolCommand.ReplaceRanks(replacements));
    if (accepted) {
      counters.add(Counter.REPLACEMENTS);
    }
    for (Slot s : batch) {
      s.replacement = null;
      if (accepted) {
        s.cursor = s.replacementLast;
        s.hasCursor = true;
        recovered(s, "tree dump of " + s.dumpSize + " events");
      } else {
        failAttempt(s, QueryFailureKind.SUBMIT_REJECTED);
      }
    }
  }

  // ------------------------------------------------------------------ lifecycle

  private void applySources(List<SourceBinding> list) {
    Map<MemberId, SourceBinding> single = new HashMap<>();
    Set<MemberId> ambiguous = new HashSet<>();
    Map<Long, Integer> publishers = new HashMap<>();
    for (SourceBinding b : list) {
      publishers.merge(b.publisherId(), 1, Integer::sum);
      if (ambiguous.contains(b.member()) || single.containsKey(b.member())) {
        ambiguous.add(b.member());
        single.remove(b.member());
      } else {
        single.put(b.member(), b);
      }
    }
    for (SourceBinding b : list) {
      if (publishers.get(b.publisherId()) > 1) {
        ambiguous.add(b.member());
        single.remove(b.member());
      }
    }
    for (Slot s : List.copyOf(byMember.values())) {
      SourceBinding next = single.get(s.member);
      if (next != null && next.equals(s.binding)) {
        continue;
      }
      retire(s);
      resetRank(s.member, false, Counter.LIFECYCLE_RESETS);
    }
    List<Slot> added = new ArrayList<>();
    for (SourceBinding b : single.values()) {
      if (!byMember.containsKey(b.member())) {
        Slot s = new Slot(b, requests != null && b.recoveryTarget().isPresent());
        s.fenced = pendingResets.containsKey(b.member());
        byMember.put(b.member(), s);
        added.add(s);
      }
    }
    slots = byMember.values().toArray(new Slot[0]);
    suspectGauge();
    if (firstUpdate) {
      firstUpdate = false;
      for (Slot s : slots) {
        if (s.recoverable) {
          initialWave.add(s.member);
        }
      }
      if (!initialWave.isEmpty()) {
        waveOpen = true;
        timer(TimeUnit.MILLISECONDS.toNanos(settings.attemptTimeoutMs()), () -> {
          if (waveOpen) {
            waveOpen = false;
            initialWave.clear();
            if (!ready.isEmpty()) {
              armQuiet(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()));
            }
          }
        });
        for (Slot s : slots) {
          if (s.recoverable) {
            startRecovery(s, "initial wave");
          }
        }
      }
    } else {
      // A source bound later whose events already arrived (discovery and the event plane are independent, so
      // events can precede the advertisement; they were dropped as unknown-publisher events) restores at once.
      for (Slot s : added) {
        if (unknownPublishers.remove(s.binding.publisherId()) && s.recoverable && !s.fenced) {
          startRecovery(s, "events or faults before its advertisement");
        }
      }
    }
    maybeCloseWave();
  }

  /** Remembers a publisher whose events were dropped before its source was bound (bounded, oldest evicted). */
  private void rememberUnknown(long publisherId) {
    if (unknownPublishers.add(publisherId) && unknownPublishers.size() > UNKNOWN_PUBLISHER_MEMORY) {
      Iterator<Long> oldest = unknownPublishers.iterator();
      oldest.next();
      oldest.remove();
    }
  }

  private void retire(Slot s) {
    invalidate(s);
    s.retired = true;
    s.suspect = false;
    byMember.remove(s.member);
    initialWave.remove(s.member);
  }

  /** Submits {@code ResetRank}; a rejection fences the member until a retried reset succeeds. */
  private void resetRank(MemberId member, boolean degraded, Counter counter) {
    if (submit(new PoolCommand.ResetRank(member, degraded))) {
      counters.add(counter);
      countReset(member, counter);
      logReset(member, degraded, counter);
      return;
    }
    LOG.warn("pool {}: reset of {} refused by the pool actor; the member is fenced until a retried reset succeeds",
        pool, member);
    pendingResets.put(member, new PendingReset(degraded, counter));
    Slot s = byMember.get(member);
    if (s != null) {
      s.fenced = true;
    }
    armResetRetry();
  }

  private void armResetRetry() {
    if (resetRetryArmed) {
      return;
    }
    resetRetryArmed = true;
    timer(TimeUnit.MILLISECONDS.toNanos(settings.initialBackoffMs()), this::retryResets);
  }

  private void retryResets() {
    resetRetryArmed = false;
    for (Map.Entry<MemberId, PendingReset> e : List.copyOf(pendingResets.entrySet())) {
      PendingReset p = e.getValue();
      if (!submit(new PoolCommand.ResetRank(e.getKey(), p.degraded()))) {
        continue;
      }
      counters.add(p.counter());
      countReset(e.getKey(), p.counter());
      logReset(e.getKey(), p.degraded(), p.counter());
      pendingResets.remove(e.getKey());
      Slot s = byMember.get(e.getKey());
      if (s != null && s.fenced) {
        s.fenced = false;
        drain(s);
      }
    }
    if (!pendingResets.isEmpty()) {
      armResetRetry();
    }
  }

  /** Counts an accepted reset on the member's bound source, unless it is the lifecycle reset of a retired one. */
  private void countReset(MemberId member, Counter why) {
    Slot s = byMember.get(member);
    if (s != null && why != Counter.LIFECYCLE_RESETS) {
      s.countReset();
    }
  }

  private void logReset(MemberId member, boolean degraded, Counter why) {
    if (degraded) {
      LOG.warn("pool {}: rank {} reset (degraded)", pool, member);
    } else {
      LOG.info("pool {}: rank {} reset ({})", pool, member,
          why == Counter.LIVE_ONLY_RESETS ? "live-only source re-learns" : "source removed, replaced or ambiguous");
    }
  }

  // ------------------------------------------------------------------ event-plane faults

  private void applyFault(EventPlaneFault fault) {
    if (fault instanceof EventPlaneFault.Disconnected) {
      for (Slot s : slots) {
        if (!s.suspect) {
          s.suspect = true;
          counters.add(Counter.SUSPECT_MARKS);
        }
      }
      suspectGauge();
    } else if (fault instanceof EventPlaneFault.Reconnected || fault instanceof EventPlaneFault.MessagesDropped) {
      for (Slot s : slots) {
        faultRecover(s, false, fault.describe());
      }
    } else if (fault instanceof EventPlaneFault.SequenceFault sf) {
      Slot s = find(sf.publisherId());
      if (s == null) {
        rememberUnknown(sf.publisherId());
        return;
      }
      if (sf instanceof EventPlaneFault.NewPublisher np) {
        if (!s.hasCursor) {
          // Its next event (the one that revealed it) or the restore under way brings the source up to date.
          return;
        }
        faultRecover(s, np.fromStart(), fault.describe());
      } else {
        faultRecover(s, sf instanceof EventPlaneFault.SequenceRegression, fault.describe());
      }
    }
  }

  /** Recovers {@code s} after a fault: a probe from the cursor, or a full restore ({@code full} or no cursor). */
  private void faultRecover(Slot s, boolean full, String why) {
    if (s.retired || s.rejected || s.fenced) {
      // Rejected sources are ineligible; a fenced one re-feeds its buffer once its pending reset succeeds.
      clearSuspect(s);
      return;
    }
    if (!s.recoverable) {
      clearSuspect(s);
      if (s.hasCursor) {
        counters.add(Counter.FAULT_RECOVERIES);
        invalidate(s);
        s.hasCursor = false;
        s.phase = Phase.LIVE;
        resetRank(s.member, false, Counter.LIVE_ONLY_RESETS);
      }
      return;
    }
    if (s.phase != Phase.LIVE) {
      s.reprobe = true;
      s.reprobeFull |= full;
      return;
    }
    counters.add(Counter.FAULT_RECOVERIES);
    if (full) {
      s.hasCursor = false;
    }
    boolean probe = s.hasCursor;
    startRecovery(s, why);
    s.probe = probe;
  }

  private void clearSuspect(Slot s) {
    if (s.suspect) {
      s.suspect = false;
      suspectGauge();
    }
  }

  private void suspectGauge() {
    long n = 0;
    for (Slot s : slots) {
      if (s.suspect) {
        n++;
      }
    }
    counters.suspectSources(n);
  }

  /** Immutable and thread-safe: a reset the pool actor refused, to be retried. */
  private record PendingReset(boolean degraded, Counter counter) {}

  /** Immutable and thread-safe: where a slot's recovery stands. */
  private enum Phase {
    /** Events are applied as they come (or, without a cursor, the next one starts a recovery). */
    LIVE,
    /** A query is in flight or a retry is scheduled; events are buffered. */
    RECOVERING,
    /** A tree dump is folded and waits in the replacement batch; events are buffered. */
    AWAITING_BATCH
  }

  /**
   * Not thread-safe: written by the serial task only; the volatile fields (what {@link #stats} reads) may be read
   * from any thread. One bound source incarnation, its cursor and buffer.
   */
  private static final class Slot {
    /** {@link #lastEventNanos} before the first event. */
    static final long NO_EVENT = Long.MIN_VALUE;
    final SourceBinding binding;
    final MemberId member;
    final boolean recoverable;
    boolean retired;
    volatile boolean fenced;
    /** RejectSource (producer.md §3.5): ineligible until its identity (publisher) changes; events are dropped. */
    volatile boolean rejected;
    boolean hasCursor;
    long cursor;
    volatile Phase phase = Phase.LIVE;
    volatile @Nullable EventBuffer buffer;
    /** The recovery clock when the serial task handled the source's last live event, or {@link #NO_EVENT}. */
    volatile long lastEventNanos = NO_EVENT;
    /** Accepted {@code ResetRank}s of this incarnation (single writer: the serial task). */
    volatile long resets;
    int retries;
    long epoch;
    @Nullable Attempt attempt;
    @Nullable RankReplacement replacement;
    long replacementLast;
    int dumpSize;
    /** The attempt in flight was started by an event-plane fault (finding nothing after the cursor is a success). */
    boolean probe;
    /** An event-plane fault arrived while recovering: probe again after it (a full restore if reprobeFull). */
    boolean reprobe;
    boolean reprobeFull;
    /** Marked by a transport disconnect; cleared once the source recovered after it. */
    volatile boolean suspect;

    Slot(SourceBinding binding, boolean recoverable) {
      this.binding = binding;
      this.member = binding.member();
      this.recoverable = recoverable;
    }

    /** Serial task only. */
    void countReset() {
      resets = resets + 1;
    }

    /** Any thread: this source's published state, {@code now} on the recovery's clock. */
    SourceRecoveryStats stats(long now) {
      long last = lastEventNanos;
      EventBuffer b = buffer;
      SourceRecoveryState state;
      if (rejected) {
        state = SourceRecoveryState.REJECTED;
      } else if (fenced) {
        state = SourceRecoveryState.FENCED;
      } else {
        state = switch (phase) {
          case LIVE -> SourceRecoveryState.LIVE;
          case RECOVERING -> SourceRecoveryState.RECOVERING;
          case AWAITING_BATCH -> SourceRecoveryState.AWAITING_BATCH;
        };
      }
      return new SourceRecoveryStats(member.workerId(), member.dpRank(), binding.publisherId(), state, recoverable,
          suspect, last == NO_EVENT ? -1 : Math.max(0, now - last) / 1_000_000L, resets, b == null ? 0 : b.size());
    }
  }

  /** Thread-safe: one query in flight; releases its relay-wide permit exactly once, from any thread. */
  private final class Attempt {
    final Slot slot;
    final long epoch;
    final AtomicBoolean released = new AtomicBoolean();

    Attempt(Slot slot, long epoch) {
      this.slot = slot;
      this.epoch = epoch;
    }

    void release() {
      if (released.compareAndSet(false, true)) {
        inFlight.remove(this);
        permits.release();
      }
    }
  }
}
