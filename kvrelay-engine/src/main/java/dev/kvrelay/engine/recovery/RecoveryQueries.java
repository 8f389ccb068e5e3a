package dev.kvrelay.engine.recovery;


import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.producer.CkfOutcome;
import dev.kvrelay.ckf.producer.RankReplacement;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.stats.PoolStats.QueryFailureKind;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StoredBlock;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: confined to the pool's recovery serial task (answers and timeouts are posted back to it). The
 * recovery queries of one source: a full restore or an incremental query from {@code cursor + 1} under a relay-wide
 * permit, its per-attempt timeout, the answer's checks (a tree dump folded into a rank replacement, events applied),
 * retries with backoff and, once they are exhausted, the degraded reset.
 */
final class RecoveryQueries {
  private static final Logger LOG = LoggerFactory.getLogger(PoolRecovery.class);

  private final RecoveryParts p;
  private final KvPoolId pool;
  private final RecoverySettings settings;
  private final Counters counters;
  private final RecoveryTask task;
  private final StoredBatch dumpBatch = new StoredBatch();

  RecoveryQueries(RecoveryParts parts) {
    this.p = parts;
    this.pool = parts.pool;
    this.settings = parts.settings;
    this.counters = parts.counters;
    this.task = parts.task;
  }

  /** Starts a recovery of {@code s} with a fresh retry budget (a full restore without a cursor). */
  void startRecovery(Slot s, String why) {
    s.phase = Phase.RECOVERING;
    s.retries = 0;
    s.epoch++;
    s.probe = false;
    if (s.recoverable && p.requests != null) {
      LOG.info("pool {}: recovery of {} (publisher {}) started: {} ({})", pool, s.member,
          Long.toUnsignedString(s.binding.publisherId()),
          s.hasCursor ? "incremental from " + Long.toUnsignedString(s.cursor + 1) : "full restore", why);
    }
    sendAttempt(s);
  }

  private void sendAttempt(Slot s) {
    RequestPlaneClient client = p.requests;
    RecoveryTarget target = s.binding.recoveryTarget().orElse(null);
    if (task.closed() || client == null || target == null) {
      return;
    }
    if (!p.permits.tryAcquire()) {
      counters.add(Counter.PERMIT_WAITS);
      long epoch = s.epoch;
      task.timer(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()), () -> {
        if (!s.retired && s.epoch == epoch && s.phase == Phase.RECOVERING && s.attempt == null) {
          sendAttempt(s);
        }
      });
      return;
    }
    counters.add(Counter.QUERIES);
    Attempt a = new Attempt(s, s.epoch, p.inFlight, p.permits);
    p.inFlight.add(a);
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
      task.post(() -> onAnswer(a, response, error));
    });
    task.timer(TimeUnit.MILLISECONDS.toNanos(settings.attemptTimeoutMs()), () -> {
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
    p.batches.add(s);
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
      if (!p.cursor.applyLive(s, e)) {
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

  /** {@code s} is up to date: live again, its buffer re-fed, a probe queued by a fault meanwhile started. */
  void recovered(Slot s, String how) {
    s.phase = Phase.LIVE;
    s.retries = 0;
    p.batches.leaveWave(s.member);
    LOG.info("pool {}: recovery of {} succeeded ({}, cursor {})", pool, s.member, how,
        Long.toUnsignedString(s.cursor));
    p.faults.clearSuspect(s);
    p.cursor.drain(s);
    if (s.reprobe) {
      boolean full = s.reprobeFull;
      s.reprobe = false;
      s.reprobeFull = false;
      if (s.phase == Phase.LIVE && !s.retired) {
        p.faults.faultRecover(s, full, "fault during the previous recovery");
      }
    }
    p.batches.maybeCloseWave();
  }

  /** The attempt of {@code s} failed: a retry after backoff, or, once retries are exhausted, a degraded reset. */
  void failAttempt(Slot s, QueryFailureKind kind) {
    counters.fail(kind);
    s.attempt = null;
    s.phase = Phase.RECOVERING;
    if (s.retries < settings.maxRetries()) {
      s.retries++;
      counters.add(Counter.RETRIES);
      LOG.warn("pool {}: recovery attempt of {} failed ({}); retry {} of {} in {} ms", pool, s.member, kind,
          s.retries, settings.maxRetries(), settings.backoffMs(s.retries));
      long epoch = s.epoch;
      task.timer(TimeUnit.MILLISECONDS.toNanos(settings.backoffMs(s.retries)), () -> {
        if (!s.retired && s.epoch == epoch && s.phase == Phase.RECOVERING && s.attempt == null) {
          sendAttempt(s);
        }
      });
      return;
    }
    counters.add(Counter.EXHAUSTED);
    LOG.error("pool {}: recovery of {} failed ({}) after {} retries; resetting the rank as degraded", pool, s.member,
        kind, settings.maxRetries());
    p.cursor.invalidate(s);
    s.hasCursor = false;
    s.reprobe = false;
    s.reprobeFull = false;
    s.phase = Phase.LIVE;
    p.batches.leaveWave(s.member);
    p.lifecycle.resetRank(s.member, true, Counter.DEGRADED_RESETS);
    p.batches.maybeCloseWave();
  }
}
