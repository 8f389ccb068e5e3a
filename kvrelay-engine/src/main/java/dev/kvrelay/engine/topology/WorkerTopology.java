package dev.kvrelay.engine.topology;

import dev.kvrelay.api.WorkerRole;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: the readiness-relevant facts one worker's base card declares
 * (producer.md §2.2 step 5: {@code worker_topology[worker] = {worker_type, model_type, needs}}).
 *
 * @param workerType the parsed {@code worker_type}; {@link WorkerRole#LEGACY} when the card has none
 * @param modelType the card's {@code model_type} as an opaque unit-identity string ("" when absent)
 * @param needs the {@code needs} DNF: the unit is satisfied when every type of one inner list is present;
 *     never contains {@link WorkerRole#LEGACY}
 */
public record WorkerTopology(WorkerRole workerType, String modelType, List<List<WorkerRole>> needs) {
  /** Validates and copies; a LEGACY role inside {@code needs} is a caller bug. */
  public WorkerTopology {
    Objects.requireNonNull(workerType, "workerType");
    Objects.requireNonNull(modelType, "modelType");
    List<List<WorkerRole>> copy = new ArrayList<>(needs.size());
    for (List<WorkerRole> alternative : needs) {
      for (WorkerRole role : alternative) {
        if (role == WorkerRole.LEGACY) {
          throw new IllegalArgumentException("needs cannot name the legacy role");
        }
      }
      copy.add(List.copyOf(alternative));
    }
    needs = List.copyOf(copy);
  }

  /** A worker with a typed role, no model type and no needs. */
  public static WorkerTopology of(WorkerRole workerType) {
    return new WorkerTopology(workerType, "", List.of());
  }

  /** A worker with a typed role and the given DNF needs, no model type. */
  public static WorkerTopology of(WorkerRole workerType, List<List<WorkerRole>> needs) {
    return new WorkerTopology(workerType, "", needs);
  }

  /** A legacy worker (card without {@code worker_type}). */
  public static WorkerTopology legacy() {
    return new WorkerTopology(WorkerRole.LEGACY, "", List.of());
  }
}
