package dev.kvrelay.engine.actor;

import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfOutcome;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe at its submission methods, single-writer inside: every command runs in one {@link SerialTask} on
 * the {@link ActorScheduler} (never two runs at once; a run takes at most a mailbox's worth of commands, then
 * yields), which alone touches the {@link CkfProducer}.
 *
 * <p>Mailbox (producer.md §3.1): bounded ({@link PoolActorConfig#mailboxCapacity()}); a full mailbox or
 * exhausted block permits reject the submission with a typed {@link SubmitResult.Rejected} (counted),
 * never blocking. (The pool's live events do not pass through it: they reach the task through its ingest stage, whose
 * inbox holds them upstream while the task is behind; see below.) An Apply costs
 * {@code max(1, #blocks or #removed hashes)} permits capped at the permit total; Cleared costs 1; permits return
 * when the command has run.
 *
 * <p>Ingest (§3.2): an event whose residency domain is unknown is counted and logged as
 * unsupported-residency, changes nothing, counts no pending event, and does not reject the source
 * ({@code ckf-cbi1.md} §3.4 decision). Other events not targeting primary residency are ignored
 * (counted). Stored events are translated through one reused {@link StoredBatch}.
 *
 * <p>Cadence (§3.4): after each applied event, a pending count at the producer's threshold drains at
 * once; otherwise the first pending event arms a one-shot timer ({@link
 * PoolActorConfig#publicationDelayNanos()}) that drains whatever is pending. Flush, ResetRank and
 * ReplaceRanks drain immediately. Shutdown drains and publishes the tail; Fence discards it.
 *
 * <p>Faults (§3.5): every non-OK outcome becomes a {@link SourceFault} ({@link FaultReporter}); an invariant
 * violation or an unexpected exception fences the actor. No fault or listener exception escapes the actor's task.
 * Lag: a publication the listener cannot take fences the publisher until the next Subscribe ({@link
 * PublicationDelivery}). The counters off the per-event path and the Stats assembly are {@link ActorCounters}.
 *
 * <p>Ingest stage ({@link #attachStage}): the pool's recovery runs its cursor rules inside this actor's serial
 * task, after each mailbox batch, and hands its commands to {@link #runInline}, which runs them at once: between
 * the event plane's delivery thread and this single writer there is then one queue (the recovery's inbox) and one
 * hand-off, and the member of an event is checked once, by the stage. The mailbox stays for the commands of other
 * threads (subscriptions, lease retirement, flush, diagnostics) and for feeders that are not a stage.
 */
public final class PoolActor {
  private static final Logger LOG = LoggerFactory.getLogger(PoolActor.class);

  private final CkfProducer producer;
  private final PoolActorConfig config;
  private final ActorScheduler scheduler;
  private final ArrayBlockingQueue<PoolCommand> mailbox;
  /** The block permits of the queued Apply commands. */
  private final BlockPermits blockPermits;
  private final AtomicLong timerDue = new AtomicLong();
  private volatile boolean closed;
  private volatile boolean shutdownRequested;
  private volatile boolean fenceRequested;
  private final CompletableFuture<Void> shutdownDone = new CompletableFuture<>();
  private final CompletableFuture<Void> fenceDone = new CompletableFuture<>();
  private final LongAdder mailboxFull = new LongAdder();
  private final LongAdder permitsExhausted = new LongAdder();
  private final LongAdder closedRejections = new LongAdder();

  // ---- confined to the actor task
  private final StoredBatch batch = new StoredBatch();
  private ActorState state = ActorState.RUNNING;
  private boolean timerArmed;
  private long timerGeneration;
  private long appliedEvents;
  private long ignoredNonPrimary;
  private long unsupportedResidency;
  private long thresholdDrains;
  private final ActorCounters counters = new ActorCounters();
  private final FaultReporter faultReporter;
  private final PublicationDelivery delivery;
  /** The actor's serial task; the body is {@link #run}. */
  private final SerialTask task;
  /** The ingest stage run by the task after each mailbox batch, or null (written once, {@link #attachStage}). */
  private final AtomicReference<SerialTask.@Nullable Body> stage = new AtomicReference<>();
  private final Runnable stageSignal = this::scheduleRun;
  /** Confined to the actor task: true while the stage runs (the only caller {@link #runInline} accepts). */
  private boolean inStage;

  private PoolActor(CkfProducer producer, PoolActorConfig config, ActorScheduler scheduler,
      PublicationListener publications, FaultListener faults) {
    this.producer = producer;
    this.config = config;
    this.scheduler = scheduler;
    this.faultReporter = new FaultReporter(faults, counters);
    this.delivery = new PublicationDelivery(producer, publications, counters);
    this.mailbox = new ArrayBlockingQueue<>(config.mailboxCapacity());
    this.blockPermits = new BlockPermits(config);
    this.task = new SerialTask(scheduler, this::run, e -> {
      LOG.error("pool actor: unexpected exception, fencing the producer", e);
      reportFault(new MemberId(0, 0), 0, FaultKind.INTERNAL_ERROR);
    });
  }

  /**
   * A running actor that owns {@code producer} from now on (no other code may touch it).
   *
   * @param producer the pool's producer; its config carries the publication threshold
   * @param config mailbox, permit and timer bounds
   * @param scheduler where the actor's task and timer run
   * @param publications receives deltas and oversized-tail snapshots
   * @param faults receives every fault with its disposition
   */
  public static PoolActor start(CkfProducer producer, PoolActorConfig config, ActorScheduler scheduler,
      PublicationListener publications, FaultListener faults) {
    return new PoolActor(Objects.requireNonNull(producer), Objects.requireNonNull(config),
        Objects.requireNonNull(scheduler), Objects.requireNonNull(publications), Objects.requireNonNull(faults));
  }

  // ------------------------------------------------------------------ submission (any thread)

  /**
   * Offers one command to the mailbox without blocking.
   *
   * @return {@link SubmitResult.Accepted}, or {@link SubmitResult.Rejected} with
   *     {@code MAILBOX_FULL}, {@code PERMITS_EXHAUSTED} or {@code CLOSED} (nothing changed); Stats is
   *     still accepted after Shutdown or Fence
   */
  public SubmitResult submit(PoolCommand command) {
    Objects.requireNonNull(command, "command");
    if (closed && !(command instanceof PoolCommand.Stats || command instanceof PoolCommand.CopyWords)) {
      closedRejections.increment();
      return new SubmitResult.Rejected(RejectReason.CLOSED);
    }
    long cost = command instanceof PoolCommand.Apply a ? blockPermits.cost(a.event()) : 0;
    if (cost > 0 && !blockPermits.acquire(cost)) {
      permitsExhausted.increment();
      return new SubmitResult.Rejected(RejectReason.PERMITS_EXHAUSTED);
    }
    if (!mailbox.offer(command)) {
      blockPermits.release(cost);
      mailboxFull.increment();
      return new SubmitResult.Rejected(RejectReason.MAILBOX_FULL);
    }
    scheduleRun();
    return SubmitResult.Accepted.INSTANCE;
  }

  /**
   * Attaches the pool's ingest stage (its recovery): from now on every run of the actor's serial task runs one batch
   * of {@code stage} after its mailbox batch, so the stage is confined to the same task as the producer; the stage
   * hands its commands to {@link #runInline} and asks for runs through {@link #stageSignal()}. Once only. Any thread.
   *
   * @throws IllegalStateException if a stage is already attached
   */
  public void attachStage(SerialTask.Body stage) {
    Objects.requireNonNull(stage, "stage");
    if (!this.stage.compareAndSet(null, stage)) {
      throw new IllegalStateException("an ingest stage is already attached");
    }
    scheduleRun();
  }

  /** The signal that asks the actor's task for a run (for its ingest stage's new work): any thread, never blocks. */
  public Runnable stageSignal() {
    return stageSignal;
  }

  /**
   * Runs {@code command} at once, in order with the stage's other commands. Only the attached stage may call it,
   * from its batch (the actor's task). The answers are those of {@link #submit}, except that nothing is queued, so
   * there is no {@code MAILBOX_FULL} or {@code PERMITS_EXHAUSTED}: after Shutdown or Fence it is {@code CLOSED}
   * (counted), otherwise {@code Accepted} once the command has run. An Apply is not checked against its member again:
   * the stage checked the event's (worker, rank) against the publisher's binding (one check, one counted outcome).
   *
   * @throws IllegalStateException if called outside the stage's batch
   */
  public SubmitResult runInline(PoolCommand command) {
    Objects.requireNonNull(command, "command");
    if (!inStage) {
      throw new IllegalStateException("runInline outside the actor's ingest stage");
    }
    if (closed && !(command instanceof PoolCommand.Stats || command instanceof PoolCommand.CopyWords)) {
      closedRejections.increment();
      return new SubmitResult.Rejected(RejectReason.CLOSED);
    }
    if (command instanceof PoolCommand.Apply a) {
      apply(a, false);
    } else {
      process(command);
    }
    return SubmitResult.Accepted.INSTANCE;
  }

  /**
   * Priority Shutdown: closes the mailbox; the queued commands run, then the pending tail is drained
   * and published and the lease retired. Idempotent.
   */
  public CompletableFuture<Void> shutdown() {
    closed = true;
    shutdownRequested = true;
    scheduleRun();
    return shutdownDone;
  }

  /**
   * Priority Fence: closes the mailbox, discards the queued commands (their replies fail with
   * {@code FENCED}) and the pending tail; nothing more is published. Idempotent.
   */
  public CompletableFuture<Void> fence() {
    closed = true;
    fenceRequested = true;
    scheduleRun();
    return fenceDone;
  }

  /** Block permits held by queued Apply commands (tests). Any thread. */
  long permitsInUse() {
    return blockPermits.inUse();
  }

  /** Block permits an Apply of {@code event} costs (producer.md §3.1). */
  long cost(RouterEvent event) {
    return blockPermits.cost(event);
  }

  private void scheduleRun() {
    task.signal();
  }

  private boolean needsRun() {
    return !mailbox.isEmpty() || timerDue.get() != 0
        || (fenceRequested && !fenceDone.isDone())
        || (shutdownRequested && !shutdownDone.isDone() && !fenceRequested);
  }

  // ------------------------------------------------------------------ the confined task

  /** One run of the serial task: the mailbox batch, then one batch of the ingest stage; true if work is left. */
  private boolean run() {
    boolean mailboxMore = runBatch();
    return runStage() || mailboxMore;
  }

  /**
   * The mailbox part of a run: at most one mailbox's worth of commands (then it yields), and the shutdown once the
   * mailbox is empty; true if work is left.
   */
  private boolean runBatch() {
    for (int budget = config.mailboxCapacity(); budget > 0; budget--) {
      if (fenceRequested && !fenceDone.isDone()) {
        guarded(this::handleFenceCommand);
      }
      long due = timerDue.getAndSet(0);
      if (due != 0) {
        guarded(() -> onTimer(due));
      }
      PoolCommand command = mailbox.poll();
      if (command == null) {
        break;
      }
      guarded(() -> process(command));
    }
    if (shutdownRequested && !shutdownDone.isDone() && mailbox.isEmpty()) {
      guarded(this::handleShutdown);
    }
    return needsRun();
  }

  /** One batch of the attached stage, if any; true if it has work left. An exception is the stage's own (logged). */
  private boolean runStage() {
    SerialTask.Body s = stage.get();
    if (s == null) {
      return false;
    }
    inStage = true;
    try {
      return s.runBatch();
    } catch (RuntimeException e) {
      LOG.error("pool actor: the ingest stage failed", e);
      return false;
    } finally {
      inStage = false;
    }
  }

  private void guarded(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      LOG.error("pool actor: unexpected exception, fencing the producer", e);
      reportFault(new MemberId(0, 0), 0, FaultKind.INTERNAL_ERROR);
    }
  }

  private void process(PoolCommand command) {
    if (command instanceof PoolCommand.Apply a) {
      try {
        apply(a, true);
      } finally {
        blockPermits.release(blockPermits.cost(a.event()));
      }
    } else if (command instanceof PoolCommand.Flush) {
      drainIfRunning();
    } else if (command instanceof PoolCommand.ResetRank r) {
      if (state == ActorState.RUNNING) {
        if (r.degraded()) {
          counters.degradedResets++;
        }
        CkfOutcome o = producer.resetRank(r.member().workerId(), r.member().dpRank());
        if (!o.isOk()) {
          reportFault(r.member(), 0, FaultKind.of(o));
        }
        drainIfRunning();
      }
    } else if (command instanceof PoolCommand.ReplaceRanks rr) {
      if (state == ActorState.RUNNING) {
        CkfOutcome o = producer.replaceRanks(rr.replacements());
        if (!o.isOk()) {
          MemberId m = rr.replacements().isEmpty() ? new MemberId(0, 0) : rr.replacements().get(0).member();
          reportFault(m, 0, FaultKind.of(o));
        }
        drainIfRunning();
      }
    } else if (command instanceof PoolCommand.Subscribe s) {
      if (delivery.subscribe(s, state)) {
        timerArmed = false;
      }
    } else if (command instanceof PoolCommand.RetireLease rl) {
      if (state == ActorState.RUNNING && producer.hasLease() && producer.lease() == rl.lease()) {
        timerArmed = false;
        producer.retireLease();
        producer.drain(); // NO_SUBSCRIBER: the pending window is dropped, the next barrier copies the table
        counters.retiredLeases++;
      }
    } else if (command instanceof PoolCommand.Stats st) {
      st.reply().complete(stats());
    } else if (command instanceof PoolCommand.CopyWords cw) {
      cw.reply().complete(producer.copyWords());
    }
  }

  private void drainIfRunning() {
    if (state == ActorState.RUNNING) {
      counters.commandDrains++;
      drainAndPublish();
    }
  }

  /** Applies one event; {@code checkMember} is false for the stage's events (it checked them against the binding). */
  private void apply(PoolCommand.Apply a, boolean checkMember) {
    if (state != ActorState.RUNNING) {
      counters.ignoredWhileClosed++;
      return;
    }
    MemberId member = a.member();
    RouterEvent event = a.event();
    if (checkMember && (event.workerId() != member.workerId() || event.dpRank() != member.dpRank())) {
      reportFault(member, a.publisherId(), FaultKind.MEMBER_MISMATCH);
      return;
    }
    if (event.hasUnsupportedResidency()) {
      // Decision (ckf-cbi1.md §3.4): no mutation, no pending count, counted + logged, source kept.
      unsupportedResidency++;
      if (LOG.isDebugEnabled()) {
        LOG.debug("pool actor: unsupported residency domain {} from {} publisher {}; ignored",
            event.residencyDomain(), member, Long.toUnsignedString(a.publisherId()));
      }
      return;
    }
    if (!event.targetsPrimary()) {
      ignoredNonPrimary++;
      return;
    }
    CkfOutcome outcome;
    KvEventData data = event.data();
    if (data instanceof KvEventData.Stored s) {
      outcome = producer.stored(translate(member, s));
    } else if (data instanceof KvEventData.Removed r) {
      outcome = producer.removed(member.workerId(), member.dpRank(), r.blockHashes());
    } else {
      outcome = producer.cleared(member.workerId(), member.dpRank());
    }
    appliedEvents++;
    if (!outcome.isOk()) {
      reportFault(member, a.publisherId(), FaultKind.of(outcome));
    }
    if (state != ActorState.RUNNING) {
      return;
    }
    if (producer.shouldDrain()) {
      thresholdDrains++;
      drainAndPublish();
    } else if (producer.pendingEvents() >= 1 && !timerArmed) {
      armTimer();
    }
  }

  private StoredBatch translate(MemberId member, KvEventData.Stored s) {
    batch.reset(member.workerId(), member.dpRank());
    if (s.parentHash().isPresent()) {
      batch.parent(s.parentHash().getAsLong());
    }
    if (s.startPosition().isPresent()) {
      batch.startPosition(s.startPosition().getAsLong());
    }
    List<StoredBlock> blocks = s.blocks();
    for (int i = 0, n = blocks.size(); i < n; i++) {
      StoredBlock b = blocks.get(i);
      batch.addBlock(b.blockHash(), b.tokensHash());
    }
    return batch;
  }

  private void armTimer() {
    timerArmed = true;
    long generation = ++timerGeneration;
    scheduler.schedule(() -> {
      timerDue.set(generation);
      scheduleRun();
    }, config.publicationDelayNanos());
  }

  private void onTimer(long generation) {
    if (!timerArmed || generation != timerGeneration || state != ActorState.RUNNING) {
      return; // stale: a drain already happened
    }
    counters.timerDrains++;
    drainAndPublish();
  }

  private void drainAndPublish() {
    timerArmed = false;
    CkfPublication p = producer.drain();
    if (p instanceof CkfDelta || p instanceof CkfSnapshot) {
      delivery.deliver(p);
    }
  }

  private void reportFault(MemberId member, long publisherId, FaultKind kind) {
    if (faultReporter.report(member, publisherId, kind) && state == ActorState.RUNNING) {
      fenceNow();
    }
  }

  /** Fences a running actor: the tail is discarded and the queued commands answered as fenced. */
  private void fenceNow() {
    discardTail();
    state = ActorState.FENCED;
    failQueued();
  }

  private void discardTail() {
    timerArmed = false;
    producer.retireLease();
    producer.drain(); // NO_SUBSCRIBER: the tail is dropped, the sequence does not advance
  }

  /** Runs every queued command of a closed actor: Apply ignored (counted), Subscribe failed, Stats answered. */
  private void failQueued() {
    PoolCommand c;
    while ((c = mailbox.poll()) != null) {
      process(c);
    }
  }

  private void handleFenceCommand() {
    if (state == ActorState.RUNNING) {
      fenceNow();
    } else {
      failQueued();
    }
    fenceDone.complete(null);
    shutdownDone.complete(null);
  }

  private void handleShutdown() {
    if (state == ActorState.RUNNING) {
      drainIfRunning();
      producer.retireLease();
      state = ActorState.SHUT_DOWN;
    }
    shutdownDone.complete(null);
  }

  private PoolStats.Actor stats() {
    return counters.snapshot(state, appliedEvents, ignoredNonPrimary, unsupportedResidency, mailboxFull.sum(),
        permitsExhausted.sum(), closedRejections.sum(), thresholdDrains, producer.stats());
  }
}
