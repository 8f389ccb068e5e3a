package dev.kvrelay.engine.topology;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.WorkerRole;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Immutable and thread-safe: what the topology needs to know about one serving endpoint's membership
 * (producer.md §2.2), independent of the membership projection's own types.
 *
 * @param endpoint the serving endpoint
 * @param roles the declared roles of the endpoint's base cards ({@code membership.roles}), non-empty
 * @param baseModels the distinct surviving Base registration models, sorted by code point
 * @param workers per worker id, its readiness topology
 * @param adapters the surviving LoRA adapters, sorted by served name
 * @param conflicts the scopes of the conflicts recorded on the endpoint
 */
public record EndpointTopology(
    DynamoEndpointId endpoint,
    Set<WorkerRole> roles,
    List<String> baseModels,
    Map<Long, WorkerTopology> workers,
    List<AdapterMembership> adapters,
    Set<ConflictScope> conflicts) {

  /** Validates and copies; duplicate base models collapse, duplicate adapter served names are a caller bug. */
  public EndpointTopology {
    Objects.requireNonNull(endpoint, "endpoint");
    if (roles.isEmpty()) {
      throw new IllegalArgumentException("endpoint " + endpoint + " declares no worker role");
    }
    roles = Collections.unmodifiableSet(EnumSet.copyOf(roles));
    TreeSet<String> models = new TreeSet<>(Text.CODE_POINT_ORDER);
    for (String model : baseModels) {
      models.add(Text.require("baseModel", model));
    }
    baseModels = List.copyOf(models);
    workers = Collections.unmodifiableMap(new HashMap<>(workers));
    List<AdapterMembership> sorted = new ArrayList<>(adapters);
    sorted.sort((a, b) -> Text.compareCodePoints(a.servedName(), b.servedName()));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).servedName().equals(sorted.get(i - 1).servedName())) {
        throw new IllegalArgumentException("adapter " + sorted.get(i).servedName() + " listed twice");
      }
    }
    adapters = List.copyOf(sorted);
    conflicts = conflicts.isEmpty()
        ? Set.of()
        : Collections.unmodifiableSet(EnumSet.copyOf(conflicts));
  }

  /**
   * An endpoint serving one base model with the given workers and no adapters or conflicts; roles are
   * derived from the workers.
   */
  public static EndpointTopology of(DynamoEndpointId endpoint, String baseModel, Map<Long, WorkerTopology> workers) {
    return new EndpointTopology(endpoint, rolesOf(workers), List.of(baseModel), workers, List.of(), Set.of());
  }

  /** The sorted set of declared roles over {@code workers} (producer.md §2.2 step 9). */
  public static Set<WorkerRole> rolesOf(Map<Long, WorkerTopology> workers) {
    EnumSet<WorkerRole> roles = EnumSet.noneOf(WorkerRole.class);
    for (WorkerTopology w : workers.values()) {
      roles.add(w.workerType());
    }
    return roles;
  }

  /** This endpoint with other conflicts. */
  public EndpointTopology withConflicts(Set<ConflictScope> newConflicts) {
    return new EndpointTopology(endpoint, roles, baseModels, workers, adapters, newConflicts);
  }

  /** This endpoint with other adapters. */
  public EndpointTopology withAdapters(List<AdapterMembership> newAdapters) {
    return new EndpointTopology(endpoint, roles, baseModels, workers, newAdapters, conflicts);
  }

  /** The readiness units of this endpoint, grouped by {@code (worker_type, model_type, needs)}. */
  public List<ReadinessUnit> units() {
    return ReadinessUnit.group(workers);
  }

  /** True if the endpoint takes part in the topology (decision (b) of §2.3). */
  boolean participates() {
    return !conflicts.contains(ConflictScope.SERVING_TOPOLOGY);
  }
}
