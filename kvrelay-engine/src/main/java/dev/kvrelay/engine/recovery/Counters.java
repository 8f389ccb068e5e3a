package dev.kvrelay.engine.recovery;


import dev.kvrelay.engine.stats.PoolStats.QueryFailureKind;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Thread-safe (lock-free atomic counters, no allocation on increment): the counters behind {@link PoolStats.Recovery}.
 */
@SuppressWarnings("EnumOrdinal") // one atomic cell per constant, by ordinal: lock- and allocation-free counting
final class Counters {
  private static final Counter[] COUNTERS = Counter.values();
  private static final QueryFailureKind[] KINDS = QueryFailureKind.values();
  private final AtomicLongArray scalars = new AtomicLongArray(COUNTERS.length);
  private final AtomicLongArray failures = new AtomicLongArray(KINDS.length);
  private static final EventPlaneFaultKind[] FAULT_KINDS = EventPlaneFaultKind.values();
  private final AtomicLongArray planeFaults = new AtomicLongArray(FAULT_KINDS.length);
  private final AtomicLong suspect = new AtomicLong();

  void add(Counter c) {
    scalars.incrementAndGet(c.ordinal());
  }

  void add(Counter c, long n) {
    scalars.addAndGet(c.ordinal(), n);
  }

  void fail(QueryFailureKind k) {
    failures.incrementAndGet(k.ordinal());
  }

  void fault(EventPlaneFaultKind k) {
    planeFaults.incrementAndGet(k.ordinal());
  }

  /** The gauge of sources suspect now (written by the serial task only). */
  void suspectSources(long n) {
    suspect.set(n);
  }

  long get(Counter c) {
    return scalars.get(c.ordinal());
  }

  /** The counters now, with the per-source {@code sources}. */
  PoolStats.Recovery snapshot(List<PoolStats.SourceRecovery> sources) {
    Map<QueryFailureKind, Long> f = new EnumMap<>(QueryFailureKind.class);
    for (QueryFailureKind k : KINDS) {
      f.put(k, failures.get(k.ordinal()));
    }
    Map<EventPlaneFaultKind, Long> pf = new EnumMap<>(EventPlaneFaultKind.class);
    for (EventPlaneFaultKind k : FAULT_KINDS) {
      pf.put(k, planeFaults.get(k.ordinal()));
    }
    return new PoolStats.Recovery(get(Counter.APPLIED), get(Counter.BUFFERED), get(Counter.BUFFER_OVERFLOWS),
        get(Counter.INBOX_OVERFLOWS), get(Counter.STALE), get(Counter.GAPS), get(Counter.UNKNOWN_PUBLISHER),
        get(Counter.MEMBER_MISMATCH), get(Counter.BARRIERS), get(Counter.QUERIES), f, get(Counter.TIMEOUTS),
        get(Counter.RETRIES), get(Counter.PERMIT_WAITS), get(Counter.LATE_ANSWERS), get(Counter.TREE_DUMPS),
        get(Counter.REPLACEMENTS), get(Counter.INVALID_TREE_DUMPS), get(Counter.LIFECYCLE_RESETS),
        get(Counter.LIVE_ONLY_RESETS), get(Counter.DEGRADED_RESETS), get(Counter.EXHAUSTED), get(Counter.DISCARDED),
        get(Counter.SUBMIT_REJECTED), get(Counter.REJECTED_SOURCES), get(Counter.REJECTED_SOURCE_EVENTS),
        get(Counter.RESYNCS), pf, get(Counter.FAULT_RECOVERIES), get(Counter.SUSPECT_MARKS), suspect.get(),
        get(Counter.BACKPRESSURE_WAITS), get(Counter.TASK_FAILURES), sources);
  }
}
