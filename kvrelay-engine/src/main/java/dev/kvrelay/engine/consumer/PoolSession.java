package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.engine.actor.SerialTask;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the consumer task, except the availability callback (any thread) — one pool of a
 * source: its {@link PoolReplica} on one lane of the global view, the pool stream that feeds it, and the
 * resubscription after backoff (wan-grpc.md §7.4).
 *
 * <p>Every detach bumps a token; a subscription completion, availability callback or timer carrying an older token
 * is stale and ignored (counted).
 */
final class PoolSession {
  static final String SUFFIX = "/ckf";

  final ConsumerSource source;
  final KvPoolId pool;
  final ProducerIdentity producer;
  private final ConsumerContext context;
  private final GlobalView view;
  private final SourceEvents events;
  KvPoolDescriptor descriptor;
  int lane = -1;
  @Nullable PoolReplica replica;
  @Nullable RelayStream<PoolFrame> stream;
  /** True once the session left the consumer (unassigned or closed). */
  boolean dropped;
  private final AtomicLong token = new AtomicLong();
  private int failures;
  /** Drains the pool stream on the consumer task, {@link ConsumerContext#DRAIN_BUDGET} frames per run. */
  private final SerialTask drain;

  PoolSession(ConsumerSource source, KvPoolDescriptor descriptor, ConsumerContext context, GlobalView view,
      SourceEvents events) {
    this.source = source;
    this.pool = descriptor.poolId();
    this.producer = descriptor.producer();
    this.descriptor = descriptor;
    this.context = context;
    this.view = view;
    this.events = events;
    this.drain = context.serialTask(source.name + " pool " + pool, this::drainBatch);
  }

  /** Closes the stream and fences every pending completion, callback and timer. */
  void detach() {
    token.incrementAndGet();
    RelayStream<PoolFrame> s = stream;
    stream = null;
    if (s != null) {
      s.close();
    }
  }

  /** Binds the replica under a new lease and subscribes (§7.4 step 1). */
  void subscribe() {
    PoolReplica r = replica;
    if (r == null || dropped || context.closed()) {
      return;
    }
    detach();
    LaneAssignmentResult bound = r.bind(producer,
        new LaneLease(context.consumerInstance, lane, context.nextLeaseEpoch()), source.catalog.relay(),
        context.monoUs());
    if (bound != LaneAssignmentResult.ASSIGNED) {
      context.counters.refusedLane(); // unreachable: leases only grow and the lane is ours
      return;
    }
    context.counters.subscribed();
    long t = token.get();
    CompletableFuture<RelayStream<PoolFrame>> future;
    try {
      future = source.relay.subscribePool(pool, producer, context.subscriberBase + SUFFIX);
    } catch (RuntimeException e) {
      onStreamError(RelayErrorReason.INTERNAL);
      return;
    }
    // The dependent stage is not needed: it only hands the outcome, failure included, to the consumer task.
    CompletableFuture<?> unused = future.whenComplete((s, err) -> context.execute(() -> onSubscribed(t, s, err)));
  }

  private void onSubscribed(long t, @Nullable RelayStream<PoolFrame> s, @Nullable Throwable err) {
    if (t != token.get() || dropped || context.closed()) {
      context.counters.staleCallback();
      if (s != null) {
        s.close();
      }
      return;
    }
    if (err != null || s == null) {
      Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
      onStreamError(cause instanceof RelayException re ? re.reason() : RelayErrorReason.INTERNAL);
      return;
    }
    stream = s;
    events.replicasChanged();
    s.onAvailable(() -> {
      if (token.get() == t) {
        drain.signal();
      }
    });
  }

  /** One drain run; true if the budget ran out with frames perhaps left. */
  private boolean drainBatch() {
    for (int i = 0; i < ConsumerContext.DRAIN_BUDGET; i++) {
      RelayStream<PoolFrame> s = stream;
      PoolReplica r = replica;
      if (s == null || r == null || dropped || context.closed()) {
        return false;
      }
      PoolFrame frame;
      try {
        frame = s.poll();
      } catch (RelayException e) {
        detach();
        onStreamError(e.reason());
        return false;
      }
      if (frame == null) {
        if (s.isFinished()) {
          detach();
          PoolReplica.FrameResult res = r.endOfStream();
          onInvalidated(res.invalidated() && res.termination() != null
              ? res.termination() : ReplicaTermination.END_OF_STREAM);
        }
        return false;
      }
      long now = context.monoUs();
      ReplicaState before = r.state();
      PoolReplica.FrameResult res = r.apply(frame, now);
      if (res.invalidated()) {
        detach();
        onInvalidated(Objects.requireNonNull(res.termination()));
        return false;
      }
      if (res.outcome() == PoolReplica.Outcome.REFUSED) {
        context.counters.staleCallback(); // unreachable while the stream is ours: the replica is bound
        return false;
      }
      context.counters.frameApplied();
      view.recordActivity(pool, now);
      if (res.outcome() == PoolReplica.Outcome.SNAPSHOT_INSTALLED) {
        failures = 0;
      }
      if (r.state() != before) {
        events.replicasChanged();
      }
    }
    return true;
  }

  /** The replica invalidated itself (§7.4 step 6): act on the termination's action. */
  void onInvalidated(ReplicaTermination termination) {
    context.counters.invalidated(termination);
    switch (termination.action()) {
      case STOP -> events.stopSource(source);
      case RECONNECT -> events.resetSource(source);
      case RESUBSCRIBE -> resubscribeLater();
    }
  }

  /** The subscription was refused or the stream ended with a relay error. */
  private void onStreamError(RelayErrorReason reason) {
    context.counters.poolStreamError(reason);
    PoolReplica r = replica;
    if (r != null) {
      r.endOfStream(); // retires the lane; counted as a stream error, not as an invalidation
    }
    if (ConsumerContext.fatal(reason)) {
      events.stopSource(source);
    } else {
      resubscribeLater();
    }
  }

  private void resubscribeLater() {
    detach();
    failures++;
    long t = token.get();
    context.schedule(() -> {
      if (t != token.get() || dropped || context.closed()) {
        context.counters.staleCallback();
        return;
      }
      context.counters.resubscribed();
      subscribe();
    }, context.backoffNanos(failures));
    events.replicasChanged();
  }

  /** The session's state as published in {@link RelayConsumer#replicaStates()}. */
  ReplicaStatus status() {
    PoolReplica r = replica;
    return new ReplicaStatus(source.name, pool, producer, lane,
        r == null ? ReplicaState.UNBOUND : r.state(), r == null ? null : r.termination(), stream != null);
  }
}
