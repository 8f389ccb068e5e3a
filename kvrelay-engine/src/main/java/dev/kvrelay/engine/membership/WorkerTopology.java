package dev.kvrelay.engine.membership;

import dev.kvrelay.api.WorkerRole;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Immutable and thread-safe: a worker's readiness-unit identity {@code {worker_type, model_type, needs}}
 * from its (legacy-prefill-normalized) base card.
 *
 * <p>Decision ({@code producer.md} §2.1 box "decoding {@code model_type}"): {@code model_type} is kept as
 * its decoded flag bits ({@link dev.kvrelay.spi.discovery.ModelCard#modelTypeFlags()}); absent or
 * undecodable is empty. The readiness evaluator ({@code dev.kvrelay.engine.topology}) groups workers into
 * units by equality of this record, so the flags serve as the unit's {@code model_type} identity.
 *
 * @param workerType the declared role ({@link WorkerRole#LEGACY} when absent)
 * @param modelType the decoded {@code model_type} flags, or empty
 * @param needs DNF of worker types
 */
public record WorkerTopology(WorkerRole workerType, OptionalInt modelType, List<List<WorkerRole>> needs) {

  /** Copies {@code needs} deeply. */
  public WorkerTopology {
    List<List<WorkerRole>> copy = new ArrayList<>(needs.size());
    for (List<WorkerRole> conjunction : needs) {
      copy.add(List.copyOf(conjunction));
    }
    needs = List.copyOf(copy);
  }

  /** A worker with a typed role, no model type and no needs. */
  public static WorkerTopology of(WorkerRole workerType) {
    return new WorkerTopology(workerType, OptionalInt.empty(), List.of());
  }

  /** A worker with a typed role and the given DNF needs, no model type. */
  public static WorkerTopology of(WorkerRole workerType, List<List<WorkerRole>> needs) {
    return new WorkerTopology(workerType, OptionalInt.empty(), needs);
  }

  /** A legacy worker (card without {@code worker_type}). */
  public static WorkerTopology legacy() {
    return new WorkerTopology(WorkerRole.LEGACY, OptionalInt.empty(), List.of());
  }
}
