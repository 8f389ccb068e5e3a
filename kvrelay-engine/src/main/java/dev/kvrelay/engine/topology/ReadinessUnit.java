package dev.kvrelay.engine.topology;

import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.membership.WorkerTopology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one readiness unit of an endpoint (producer.md §5.2), i.e. the workers that
 * share {@code (worker_type, model_type, needs)}.
 *
 * <p>Decision (b) of §5.2: the grouping key includes {@code model_type}.
 *
 * @param workerType {@link WorkerRole#LEGACY} for role-less workers
 * @param modelType the decoded {@code model_type} flags (empty when absent), compared by equality only
 * @param needs the DNF needs of the unit
 * @param workerIds the unit's worker (instance) ids, ordered as unsigned 64-bit values
 */
record ReadinessUnit(
    WorkerRole workerType, OptionalInt modelType, List<List<WorkerRole>> needs, SortedSet<Long> workerIds) {
  /** Copies the worker id set. */
  public ReadinessUnit {
    Objects.requireNonNull(workerType, "workerType");
    Objects.requireNonNull(modelType, "modelType");
    needs = new WorkerTopology(workerType, modelType, needs).needs();
    TreeSet<Long> ids = new TreeSet<>(Long::compareUnsigned);
    ids.addAll(workerIds);
    workerIds = Collections.unmodifiableSortedSet(ids);
  }

  /** Groups workers by {@code (worker_type, model_type, needs)}, units ordered by their smallest unsigned worker id. */
  public static List<ReadinessUnit> group(Map<Long, WorkerTopology> workers) {
    return group(workers, null);
  }

  /** Like {@link #group(Map)} but keeps only workers in {@code only} (when non-null). */
  static List<ReadinessUnit> group(Map<Long, WorkerTopology> workers, @Nullable Set<Long> only) {
    TreeSet<Long> ids = new TreeSet<>(Long::compareUnsigned);
    ids.addAll(workers.keySet());
    Map<WorkerTopology, TreeSet<Long>> byKey = new LinkedHashMap<>();
    for (Long id : ids) {
      if (only != null && !only.contains(id)) {
        continue;
      }
      byKey.computeIfAbsent(workers.get(id), k -> new TreeSet<>(Long::compareUnsigned)).add(id);
    }
    List<ReadinessUnit> units = new ArrayList<>(byKey.size());
    for (Map.Entry<WorkerTopology, TreeSet<Long>> e : byKey.entrySet()) {
      WorkerTopology key = e.getKey();
      units.add(new ReadinessUnit(key.workerType(), key.modelType(), key.needs(), e.getValue()));
    }
    return List.copyOf(units);
  }

  /** Number of this unit's workers in {@code live}. */
  int liveCount(Set<Long> live) {
    int n = 0;
    for (Long id : workerIds) {
      if (live.contains(id)) {
        n++;
      }
    }
    return n;
  }
}
