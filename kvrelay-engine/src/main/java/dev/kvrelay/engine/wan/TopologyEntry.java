package dev.kvrelay.engine.wan;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WorkerRole;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable and thread-safe: the readiness of one {@code (namespace, base canonical model)} (wire
 * {@code TopologyEntry}, producer.md §5).
 *
 * @param namespace the members' namespace
 * @param canonicalModelId the base canonical model
 * @param state UNKNOWN, UNAVAILABLE or READY
 * @param presentRoles live typed roles (empty when UNKNOWN), enum order
 * @param missingRoles roles the readiness DNF misses (empty when UNKNOWN), enum order
 * @param members at least one, sorted by endpoint path, unique endpoints, all in {@code namespace}
 * @param duplicateRoleEndpoints PREFILL / DECODE with more than one live unit, enum order
 * @param legacyFallbackActive true if any unit is role-less (legacy)
 * @param adapters sorted by served name, unique
 */
public record TopologyEntry(
    String namespace,
    String canonicalModelId,
    ServingReadinessState state,
    List<WorkerRole> presentRoles,
    List<WorkerRole> missingRoles,
    List<TopologyMember> members,
    List<WorkerRole> duplicateRoleEndpoints,
    boolean legacyFallbackActive,
    List<AdapterReadiness> adapters) {

  /** Validates the §1.8 invariants that a producer must never break and copies the lists. */
  public TopologyEntry {
    WireText.require("namespace", namespace);
    WireText.require("canonicalModelId", canonicalModelId);
    Objects.requireNonNull(state, "state");
    presentRoles = Roles.sortedUnique("presentRoles", presentRoles);
    missingRoles = Roles.sortedUnique("missingRoles", missingRoles);
    duplicateRoleEndpoints = Roles.sortedUnique("duplicateRoleEndpoints", duplicateRoleEndpoints);
    for (WorkerRole role : duplicateRoleEndpoints) {
      if (role != WorkerRole.PREFILL && role != WorkerRole.DECODE) {
        throw new IllegalArgumentException("duplicate_role_endpoints admits only prefill and decode");
      }
    }
    members = List.copyOf(members);
    if (members.isEmpty()) {
      throw new IllegalArgumentException("topology entry requires at least one member");
    }
    Set<DynamoEndpointId> seen = new HashSet<>();
    for (TopologyMember member : members) {
      if (!member.endpoint().namespace().equals(namespace)) {
        throw new IllegalArgumentException("member " + member.endpoint() + " is outside namespace " + namespace);
      }
      if (!seen.add(member.endpoint())) {
        throw new IllegalArgumentException("member " + member.endpoint() + " listed twice");
      }
    }
    adapters = List.copyOf(adapters);
    Set<String> names = new HashSet<>();
    for (AdapterReadiness adapter : adapters) {
      if (!names.add(adapter.canonicalModelId())) {
        throw new IllegalArgumentException("adapter " + adapter.canonicalModelId() + " listed twice");
      }
    }
  }
}
