package dev.kvrelay.engine;

import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.FaultDisposition;
import dev.kvrelay.engine.actor.SourceFault;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Thread-safe (guarded by itself): the host's pending-fault queue of one pool generation (producer.md §3.5): the
 * actor offers faults from its task, the control task takes them. One slot per (worker, dp_rank), the first fault
 * of a member wins until the take (every queued kind today rejects the source, so later ones add nothing). More than {@value #MAX_PENDING_SOURCE_FAULTS} distinct
 * sources, or any FenceAndRebuildProducer, ask for a producer fence. Capacity omissions are never queued (the actor
 * counts them). Memory is bounded by the cap whatever the fault rate.
 */
final class SourceFaultQueue {
  /** {@code MAX_PENDING_SOURCE_FAULTS}. */
  static final int MAX_PENDING_SOURCE_FAULTS = 16;

  private final LinkedHashMap<MemberId, SourceFault> pending = new LinkedHashMap<>();
  private boolean drainScheduled;
  private boolean fence;
  private boolean overflow;

  /**
   * Immutable and thread-safe: what one take found.
   *
   * @param faults one per member, in arrival order
   * @param fence a FenceAndRebuildProducer fault arrived
   * @param overflow more than {@value SourceFaultQueue#MAX_PENDING_SOURCE_FAULTS} distinct sources had faults
   */
  record Taken(List<SourceFault> faults, boolean fence, boolean overflow) {}

  /**
   * Queues {@code fault}.
   *
   * @return true if the caller must schedule {@link #take()} on the control task (no take is pending yet)
   */
  synchronized boolean offer(SourceFault fault) {
    FaultDisposition d = fault.disposition();
    if (d == FaultDisposition.CONTINUE_CAPACITY_OMISSION) {
      return false;
    }
    if (d == FaultDisposition.FENCE_AND_REBUILD_PRODUCER) {
      fence = true;
    } else {
      if (!pending.containsKey(fault.member())) {
        if (pending.size() >= MAX_PENDING_SOURCE_FAULTS) {
          overflow = true;
        } else {
          pending.put(fault.member(), fault);
        }
      }
    }
    if (drainScheduled) {
      return false;
    }
    drainScheduled = true;
    return true;
  }

  /** Everything pending, emptied; the next offer schedules a new take. */
  synchronized Taken take() {
    Taken out = new Taken(List.copyOf(pending.values()), fence, overflow);
    pending.clear();
    fence = false;
    overflow = false;
    drainScheduled = false;
    return out;
  }
}
