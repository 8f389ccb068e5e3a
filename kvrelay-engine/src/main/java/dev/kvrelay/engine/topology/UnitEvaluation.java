package dev.kvrelay.engine.topology;

import dev.kvrelay.api.WorkerRole;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * Immutable and thread-safe: the outcome of the shared readiness evaluator over a list of units
 * (producer.md §5.3, {@code evaluate_readiness}).
 *
 * @param ready has a live unit and nothing is missing
 * @param present worker types of live typed units
 * @param missing roles the units miss
 * @param ambiguous non-aggregated types with more than one live unit (empty under legacy fallback)
 * @param legacy any unit is role-less
 */
record UnitEvaluation(
    boolean ready, EnumSet<WorkerRole> present, EnumSet<WorkerRole> missing, EnumSet<WorkerRole> ambiguous,
    boolean legacy) {

  /** Immutable: one unit with its live worker count. */
  record LiveUnit(WorkerRole workerType, List<List<WorkerRole>> needs, int liveCount) {}

  static UnitEvaluation evaluate(List<LiveUnit> units) {
    EnumSet<WorkerRole> present = EnumSet.noneOf(WorkerRole.class);
    boolean hasLive = false;
    boolean legacy = false;
    for (LiveUnit unit : units) {
      boolean live = unit.liveCount() > 0;
      hasLive |= live;
      if (unit.workerType() == WorkerRole.LEGACY) {
        legacy = true;
      } else if (live) {
        present.add(unit.workerType());
      }
    }
    EnumSet<WorkerRole> missing = EnumSet.noneOf(WorkerRole.class);
    EnumSet<WorkerRole> ambiguous = EnumSet.noneOf(WorkerRole.class);
    if (legacy) {
      return new UnitEvaluation(hasLive, present, missing, ambiguous, true);
    }
    Map<WorkerRole, Integer> liveUnits = new EnumMap<>(WorkerRole.class);
    for (LiveUnit unit : units) {
      if (unit.liveCount() > 0 && unit.workerType() != WorkerRole.AGGREGATED
          && liveUnits.merge(unit.workerType(), 1, Integer::sum) > 1) {
        ambiguous.add(unit.workerType());
      }
    }
    for (LiveUnit unit : units) {
      if (!present.contains(unit.workerType())) {
        missing.add(unit.workerType());
      }
      if (unit.liveCount() > 0 && !unit.needs().isEmpty() && !anySatisfied(unit.needs(), present)) {
        for (List<WorkerRole> alternative : unit.needs()) {
          for (WorkerRole needed : alternative) {
            if (!present.contains(needed)) {
              missing.add(needed);
            }
          }
        }
      }
    }
    return new UnitEvaluation(hasLive && missing.isEmpty(), present, missing, ambiguous, false);
  }

  private static boolean anySatisfied(List<List<WorkerRole>> needs, EnumSet<WorkerRole> present) {
    for (List<WorkerRole> alternative : needs) {
      if (present.containsAll(alternative)) {
        return true;
      }
    }
    return false;
  }
}
