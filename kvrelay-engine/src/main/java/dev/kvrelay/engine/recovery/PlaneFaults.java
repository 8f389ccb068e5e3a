package dev.kvrelay.engine.recovery;

import dev.kvrelay.spi.eventplane.EventPlaneFault;

/**
 * Not thread-safe: confined to the pool's recovery serial task. The reaction to event-plane faults of the pool's
 * {@code kv-events} subscription (see {@link PoolRecovery#onPlaneFault}): probes from the cursor or full restores of
 * the sources concerned, resets of live-only ones, and the suspect marks of a disconnect with their gauge.
 */
final class PlaneFaults {
  private final RecoveryParts p;
  private final Counters counters;

  PlaneFaults(RecoveryParts parts) {
    this.p = parts;
    this.counters = parts.counters;
  }

  /** Acts on {@code fault} (already counted by kind). */
  void apply(EventPlaneFault fault) {
    if (fault instanceof EventPlaneFault.Disconnected) {
      for (Slot s : p.lifecycle.slots()) {
        if (!s.suspect) {
          s.suspect = true;
          counters.add(Counter.SUSPECT_MARKS);
        }
      }
      suspectGauge();
    } else if (fault instanceof EventPlaneFault.Reconnected || fault instanceof EventPlaneFault.MessagesDropped) {
      for (Slot s : p.lifecycle.slots()) {
        faultRecover(s, false, fault.describe());
      }
    } else if (fault instanceof EventPlaneFault.SequenceFault sf) {
      Slot s = p.lifecycle.find(sf.publisherId());
      if (s == null) {
        p.lifecycle.rememberUnknown(sf.publisherId());
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
  void faultRecover(Slot s, boolean full, String why) {
    if (s.retired || s.rejected || s.fenced) {
      // Rejected sources are ineligible; a fenced one re-feeds its buffer once its pending reset succeeds.
      clearSuspect(s);
      return;
    }
    if (!s.recoverable) {
      clearSuspect(s);
      if (s.hasCursor) {
        counters.add(Counter.FAULT_RECOVERIES);
        p.cursor.invalidate(s);
        s.hasCursor = false;
        s.phase = Phase.LIVE;
        p.lifecycle.resetRank(s.member, false, Counter.LIVE_ONLY_RESETS);
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
    p.queries.startRecovery(s, why);
    s.probe = probe;
  }

  /** Clears the suspect mark of {@code s}, if any (it recovered, or cannot be recovered). */
  void clearSuspect(Slot s) {
    if (s.suspect) {
      s.suspect = false;
      suspectGauge();
    }
  }

  /** Publishes the number of bound sources suspect now. */
  void suspectGauge() {
    long n = 0;
    for (Slot s : p.lifecycle.slots()) {
      if (s.suspect) {
        n++;
      }
    }
    counters.suspectSources(n);
  }
}
