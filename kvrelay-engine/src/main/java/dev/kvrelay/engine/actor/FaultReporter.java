package dev.kvrelay.engine.actor;

import dev.kvrelay.ckf.producer.MemberId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: confined to the pool actor's task; turns each non-OK outcome into a {@link SourceFault} that is
 * counted by disposition, logged and handed to the {@link FaultListener} (producer.md §3.5).
 *
 * <p>A listener exception is counted and logged, never propagated. Whether the fault fences the actor is the
 * caller's decision: {@link #report} only says that its disposition asks for it.
 */
final class FaultReporter {
  /** The actor's logger: the log lines read as they did before this type existed. */
  private static final Logger LOG = LoggerFactory.getLogger(PoolActor.class);

  private final FaultListener faults;
  private final ActorCounters counters;

  FaultReporter(FaultListener faults, ActorCounters counters) {
    this.faults = faults;
    this.counters = counters;
  }

  /**
   * Counts, logs and reports one fault.
   *
   * @return true if its disposition is {@link FaultDisposition#FENCE_AND_REBUILD_PRODUCER}
   */
  boolean report(MemberId member, long publisherId, FaultKind kind) {
    SourceFault fault = new SourceFault(member, publisherId, kind);
    counters.faults++;
    switch (kind.disposition()) {
      case CONTINUE_CAPACITY_OMISSION -> counters.capacityOmissions++;
      case REJECT_SOURCE -> counters.rejectSource++;
      case FENCE_AND_REBUILD_PRODUCER -> counters.fenceFaults++;
      case REPORT_RESOURCE_FAILURE -> { }
    }
    if (kind == FaultKind.CAPACITY_EXHAUSTED) {
      LOG.debug("pool actor fault: {}", fault);
    } else {
      LOG.warn("pool actor fault: {}", fault);
    }
    try {
      faults.onFault(fault);
    } catch (RuntimeException e) {
      counters.listenerErrors++;
      LOG.warn("pool actor: fault listener failed", e);
    }
    return kind.disposition() == FaultDisposition.FENCE_AND_REBUILD_PRODUCER;
  }
}
