package dev.kvrelay.engine.recovery;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (final fields only, set once by {@link PoolRecovery}'s constructor): the wiring of one pool's recovery,
 * its collaborators and its job classes, so that each job reaches the others. The jobs themselves are confined to
 * the recovery's serial task unless their own contract says otherwise.
 */
final class RecoveryParts {
  final KvPoolId pool;
  final RecoverySettings settings;
  /** The actor's inline commands ({@link PoolActor#runInline}), as the stage hands them on (tests may tap them). */
  final Function<PoolCommand, SubmitResult> actor;
  final @Nullable RequestPlaneClient requests;
  final Semaphore permits;
  final LongSupplier nanoTime;
  final Counters counters = new Counters();
  /** The queries holding a relay-wide permit (released on answer, timeout or close). */
  final Set<Attempt> inFlight = ConcurrentHashMap.newKeySet();
  final RecoveryTask task;
  final SourceLifecycle lifecycle;
  final CursorRules cursor;
  final RecoveryQueries queries;
  final ReplacementBatches batches;
  final PlaneFaults faults;

  RecoveryParts(KvPoolId pool, RecoverySettings settings, Function<PoolCommand, SubmitResult> actor,
      @Nullable RequestPlaneClient requests, Semaphore permits, ActorScheduler scheduler, LongSupplier nanoTime,
      long inboxWaitNanos, PoolActor host) {
    this.pool = pool;
    this.settings = settings;
    this.actor = actor;
    this.requests = requests;
    this.permits = permits;
    this.nanoTime = nanoTime;
    this.task = new RecoveryTask(pool, scheduler, counters, inboxWaitNanos, this::onInbound, host);
    // The jobs only keep this wiring; none calls another before the constructor returned.
    this.lifecycle = new SourceLifecycle(this);
    this.cursor = new CursorRules(this);
    this.queries = new RecoveryQueries(this);
    this.batches = new ReplacementBatches(this);
    this.faults = new PlaneFaults(this);
    task.start(); // last: the actor's task may run this recovery's batches from now on
  }

  private void onInbound(EventEnvelope envelope, RouterEvent event) {
    cursor.onInbound(envelope, event);
  }

  /** Runs {@code command} on the pool actor; a refusal is counted ({@code submitRejected}) and returns false. */
  boolean submit(PoolCommand command) {
    return offer(command).accepted();
  }

  /** Runs {@code command} on the pool actor and returns its answer; a refusal is counted ({@code submitRejected}). */
  SubmitResult offer(PoolCommand command) {
    SubmitResult result = actor.apply(command);
    if (!result.accepted()) {
      counters.add(Counter.SUBMIT_REJECTED);
    }
    return result;
  }
}
