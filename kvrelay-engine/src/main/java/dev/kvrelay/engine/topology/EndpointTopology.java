package dev.kvrelay.engine.topology;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.membership.AdapterMembership;
import dev.kvrelay.engine.membership.ConflictScope;
import dev.kvrelay.engine.membership.EndpointMembership;
import dev.kvrelay.engine.membership.MembershipConflict;
import dev.kvrelay.engine.membership.WorkerTopology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Immutable and thread-safe: what the topology needs to know about one serving endpoint's membership
 * (producer.md §2.2), in the membership projection's own value types; {@link #from(EndpointMembership)}
 * builds it straight from the projection.
 *
 * @param endpoint the serving endpoint
 * @param roles the declared roles of the endpoint's base cards ({@code membership.roles}), non-empty
 * @param baseModels the distinct surviving Base registration models, sorted by code point
 * @param workers per worker id, its readiness topology
 * @param adapters served adapter name → the surviving LoRA adapter, code-point order of the name
 * @param conflicts the scopes of the conflicts recorded on the endpoint
 */
public record EndpointTopology(
    DynamoEndpointId endpoint,
    Set<WorkerRole> roles,
    List<String> baseModels,
    Map<Long, WorkerTopology> workers,
    SortedMap<String, AdapterMembership> adapters,
    Set<ConflictScope> conflicts) {

  /** Validates and copies; duplicate base models collapse. */
  public EndpointTopology {
    Objects.requireNonNull(endpoint, "endpoint");
    if (roles.isEmpty()) {
      throw new IllegalArgumentException("endpoint " + endpoint + " declares no worker role");
    }
    roles = Collections.unmodifiableSet(EnumSet.copyOf(roles));
    TreeSet<String> models = new TreeSet<>(WireText.CODE_POINT_ORDER);
    for (String model : baseModels) {
      models.add(WireText.require("baseModel", model));
    }
    baseModels = List.copyOf(models);
    workers = Collections.unmodifiableMap(new HashMap<>(workers));
    TreeMap<String, AdapterMembership> byName = new TreeMap<>(WireText.CODE_POINT_ORDER);
    for (Map.Entry<String, AdapterMembership> e : adapters.entrySet()) {
      AdapterMembership a = e.getValue();
      WireText.require("servedName", e.getKey());
      WireText.require("baseModel", a.baseModel());
      WireText.require("adapter", a.adapter());
      byName.put(e.getKey(), a);
    }
    adapters = Collections.unmodifiableSortedMap(byName);
    conflicts = conflicts.isEmpty()
        ? Set.of()
        : Collections.unmodifiableSet(EnumSet.copyOf(conflicts));
  }

  /**
   * An endpoint serving one base model with the given workers and no adapters or conflicts; roles are
   * derived from the workers.
   */
  public static EndpointTopology of(DynamoEndpointId endpoint, String baseModel, Map<Long, WorkerTopology> workers) {
    return new EndpointTopology(endpoint, rolesOf(workers), List.of(baseModel), workers, new TreeMap<>(), Set.of());
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
  public EndpointTopology withAdapters(Map<String, AdapterMembership> newAdapters) {
    return new EndpointTopology(endpoint, roles, baseModels, workers, new TreeMap<>(newAdapters), conflicts);
  }

  /** The readiness units of this endpoint, grouped by {@code (worker_type, model_type, needs)}. */
  public List<ReadinessUnit> units() {
    return ReadinessUnit.group(workers);
  }

  /** True if the endpoint takes part in the topology (decision (b) of §2.3). */
  boolean participates() {
    for (ConflictScope scope : conflicts) {
      if (scope.removesTopologyMember()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The topology input of one projected endpoint ({@code producer.md} §2.2 → §5): its roles, the
   * canonical ids of its Base registrations, its worker topology, its adapters and the scopes of its
   * conflicts. Empty if the membership declares no role (no base card survived), because such an endpoint
   * has no readiness unit.
   */
  public static Optional<EndpointTopology> from(EndpointMembership membership) {
    if (membership.roles().isEmpty()) {
      return Optional.empty();
    }
    List<String> baseModels = new ArrayList<>();
    for (ModelRegistration r : membership.registrations()) {
      if (r.target() instanceof ModelTarget.Base) {
        baseModels.add(r.canonicalModelId());
      }
    }
    EnumSet<ConflictScope> scopes = EnumSet.noneOf(ConflictScope.class);
    for (MembershipConflict c : membership.conflicts()) {
      scopes.add(c.scope());
    }
    return Optional.of(new EndpointTopology(membership.endpoint(), EnumSet.copyOf(membership.roles()),
        baseModels, membership.workerTopology(), membership.adapters(), scopes));
  }
}
