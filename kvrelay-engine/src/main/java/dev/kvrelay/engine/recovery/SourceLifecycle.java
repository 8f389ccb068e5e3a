package dev.kvrelay.engine.recovery;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.stats.PoolStats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: confined to the pool's recovery serial task, except {@link #sourceStats}, which any thread may
 * call. The bound sources of the pool and their lifecycle: binding updates (retire, reset and re-activate a source
 * that is gone, changed or ambiguous), the resets it submits (a refused one fences the member until a retry
 * succeeds), the pool actor's reports (RejectSource, resource failures) and publishers seen before their binding.
 */
final class SourceLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(PoolRecovery.class);
  /** Unknown publishers remembered so that binding them later triggers an immediate restore. */
  private static final int UNKNOWN_PUBLISHER_MEMORY = 1024;
  private static final Comparator<PoolStats.SourceRecovery> SOURCE_ORDER = (a, b) -> {
    int c = Long.compareUnsigned(a.workerId(), b.workerId());
    return c != 0 ? c : Integer.compareUnsigned(a.dpRank(), b.dpRank());
  };

  private final RecoveryParts p;
  private final KvPoolId pool;
  private final RecoverySettings settings;
  private final Counters counters;
  private final RecoveryTask task;
  /** The bound sources; replaced (never mutated) by the serial task, read by {@link #sourceStats} from any thread. */
  private volatile Slot[] slots = new Slot[0];
  private final Map<MemberId, Slot> byMember = new HashMap<>();
  private boolean firstUpdate = true;
  private final LinkedHashSet<Long> unknownPublishers = new LinkedHashSet<>();
  private final Map<MemberId, PendingReset> pendingResets = new LinkedHashMap<>();
  private boolean resetRetryArmed;

  SourceLifecycle(RecoveryParts parts) {
    this.p = parts;
    this.pool = parts.pool;
    this.settings = parts.settings;
    this.counters = parts.counters;
    this.task = parts.task;
  }

  /** The bound sources (the array is never mutated; do not mutate it). */
  Slot[] slots() {
    return slots;
  }

  /** The bound source of {@code member}, or null. */
  @Nullable Slot slot(MemberId member) {
    return byMember.get(member);
  }

  /** The bound source of {@code publisherId}, or null. */
  @Nullable Slot find(long publisherId) {
    for (Slot s : slots) {
      if (s.binding.publisherId() == publisherId) {
        return s;
      }
    }
    return null;
  }

  /** Every bound source's published state, ordered by worker then rank (unsigned). Any thread. */
  List<PoolStats.SourceRecovery> sourceStats(long now) {
    Slot[] bound = slots;
    PoolStats.SourceRecovery[] out = new PoolStats.SourceRecovery[bound.length];
    for (int i = 0; i < bound.length; i++) {
      out[i] = bound[i].stats(now);
    }
    Arrays.sort(out, SOURCE_ORDER);
    return Arrays.asList(out);
  }

  /** The complete current set of bound sources (see {@link PoolRecovery#updateSources}). */
  void applySources(List<SourceBinding> list) {
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
      if (publishers.getOrDefault(b.publisherId(), 0) > 1) {
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
        Slot s = new Slot(b, p.requests != null && b.recoveryTarget().isPresent());
        s.fenced = pendingResets.containsKey(b.member());
        byMember.put(b.member(), s);
        added.add(s);
      }
    }
    Slot[] now = byMember.values().toArray(new Slot[0]);
    slots = now;
    p.faults.suspectGauge();
    if (firstUpdate) {
      firstUpdate = false;
      if (p.batches.openWave(now)) {
        for (Slot s : now) {
          if (s.recoverable) {
            p.queries.startRecovery(s, "initial wave");
          }
        }
      }
    } else {
      // A source bound later whose events already arrived (discovery and the event plane are independent, so
      // events can precede the advertisement; they were dropped as unknown-publisher events) restores at once.
      for (Slot s : added) {
        if (unknownPublishers.remove(s.binding.publisherId()) && s.recoverable && !s.fenced) {
          p.queries.startRecovery(s, "events or faults before its advertisement");
        }
      }
    }
    p.batches.maybeCloseWave();
  }

  /** Remembers a publisher whose events were dropped before its source was bound (bounded, oldest evicted). */
  void rememberUnknown(long publisherId) {
    if (unknownPublishers.add(publisherId) && unknownPublishers.size() > UNKNOWN_PUBLISHER_MEMORY) {
      Iterator<Long> oldest = unknownPublishers.iterator();
      oldest.next();
      oldest.remove();
    }
  }

  /** RejectSource (see {@link PoolRecovery#rejectSource}); a stale report is ignored. */
  void reject(MemberId member, long publisherId) {
    Slot s = byMember.get(member);
    if (s != null && !s.rejected && s.binding.publisherId() == publisherId) {
      s.rejected = true;
      p.cursor.invalidate(s);
      s.phase = Phase.LIVE;
      p.batches.leaveWave(s.member);
      counters.add(Counter.REJECTED_SOURCES);
      LOG.warn("pool {}: source {} publisher {} rejected after a protocol fault; ineligible until it changes", pool,
          member, Long.toUnsignedString(publisherId));
      p.batches.maybeCloseWave();
    }
  }

  /** A resource failure of the pool actor (see {@link PoolRecovery#resync}); a stale report is ignored. */
  void resync(MemberId member, long publisherId) {
    Slot s = byMember.get(member);
    if (s == null || s.rejected || s.binding.publisherId() != publisherId) {
      return;
    }
    counters.add(Counter.RESYNCS);
    p.cursor.invalidate(s);
    s.hasCursor = false;
    if (s.recoverable) {
      p.queries.startRecovery(s, "pool actor resource failure");
    } else {
      s.phase = Phase.LIVE;
      resetRank(s.member, false, Counter.LIVE_ONLY_RESETS);
    }
  }

  private void retire(Slot s) {
    p.cursor.invalidate(s);
    s.retired = true;
    s.suspect = false;
    byMember.remove(s.member);
    p.batches.leaveWave(s.member);
  }

  /** Submits {@code ResetRank}; a rejection fences the member until a retried reset succeeds. */
  void resetRank(MemberId member, boolean degraded, Counter counter) {
    if (p.submit(new PoolCommand.ResetRank(member, degraded))) {
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
    task.timer(TimeUnit.MILLISECONDS.toNanos(settings.initialBackoffMs()), this::retryResets);
  }

  private void retryResets() {
    resetRetryArmed = false;
    for (Map.Entry<MemberId, PendingReset> e : List.copyOf(pendingResets.entrySet())) {
      PendingReset r = e.getValue();
      if (!p.submit(new PoolCommand.ResetRank(e.getKey(), r.degraded()))) {
        continue;
      }
      counters.add(r.counter());
      countReset(e.getKey(), r.counter());
      logReset(e.getKey(), r.degraded(), r.counter());
      pendingResets.remove(e.getKey());
      Slot s = byMember.get(e.getKey());
      if (s != null && s.fenced) {
        s.fenced = false;
        p.cursor.drain(s);
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

  /** Immutable and thread-safe: a reset the pool actor refused, to be retried. */
  private record PendingReset(boolean degraded, Counter counter) {}
}
