package dev.kvrelay.engine.wire;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (stateless): consumer-side validation of a received {@code TopologyEntry}
 * (wan-grpc.md §1.8). A malformed value raises a {@link WireValidationException} of kind MALFORMED; a
 * value from a newer contract (unknown state or role) raises kind UNSUPPORTED, and the consumer
 * quarantines the whole entry instead of reading it with default semantics.
 *
 * <p>Check order: texts, state, role sets, members, duplicate roles, adapters.
 */
public final class TopologyEntryValidator {
  private TopologyEntryValidator() {}

  /**
   * Immutable and thread-safe: a {@code TopologyEntry} as decoded from protobuf, before validation.
   * Strings and repeated fields may be absent ({@code null}); enum fields carry their raw numbers.
   */
  @SuppressWarnings("ArrayRecordComponent") // a decoder's raw carrier, only read by validate(), never compared
  public record EntryWire(
      @Nullable String namespace,
      @Nullable String canonicalModelId,
      int state,
      int @Nullable [] presentRoles,
      int @Nullable [] missingRoles,
      @Nullable List<@Nullable MemberWire> members,
      int @Nullable [] duplicateRoleEndpoints,
      boolean legacyFallbackActive,
      @Nullable List<@Nullable AdapterWire> adapters) {}

  /** Immutable and thread-safe: a raw {@code TopologyMember}; {@code poolId} null when the optional is unset. */
  @SuppressWarnings("ArrayRecordComponent") // a decoder's raw carrier, only read by validate(), never compared
  public record MemberWire(
      @Nullable String namespace,
      @Nullable String component,
      @Nullable String endpoint,
      int @Nullable [] roles,
      KvPoolId.@Nullable Wire poolId) {}

  /** Immutable and thread-safe: a raw {@code AdapterReadiness}. */
  @SuppressWarnings("ArrayRecordComponent") // a decoder's raw carrier, only read by validate(), never compared
  public record AdapterWire(@Nullable String canonicalModelId, int state, int @Nullable [] missingRoles) {}

  /**
   * Validates a received entry.
   *
   * @throws WireValidationException MALFORMED or UNSUPPORTED, naming the offending field
   */
  public static TopologyEntry validate(@Nullable EntryWire wire) throws WireValidationException {
    if (wire == null) {
      throw WireValidationException.malformed("entry", "topology entry is missing");
    }
    String namespace = WireText.check("namespace", wire.namespace());
    String model = WireText.check("canonical_model_id", wire.canonicalModelId());
    ServingReadinessState state = ServingReadinessState.fromWire(wire.state());
    Set<WorkerRole> present = roleSet("present_roles", wire.presentRoles());
    Set<WorkerRole> missing = roleSet("missing_roles", wire.missingRoles());
    List<@Nullable MemberWire> rawMembers = wire.members();
    if (rawMembers == null || rawMembers.isEmpty()) {
      throw WireValidationException.malformed("members", "topology entry requires at least one member");
    }
    List<TopologyMember> members = new ArrayList<>(rawMembers.size());
    Set<DynamoEndpointId> seen = new HashSet<>();
    for (int i = 0; i < rawMembers.size(); i++) {
      MemberWire raw = rawMembers.get(i);
      String field = "members[" + i + "]";
      if (raw == null) {
        throw WireValidationException.malformed(field, "member is missing");
      }
      DynamoEndpointId endpoint = DynamoEndpointId.fromWire(raw.namespace(), raw.component(), raw.endpoint());
      if (!endpoint.namespace().equals(namespace)) {
        throw WireValidationException.malformed(
            field + ".endpoint.namespace",
            "member namespace '" + endpoint.namespace() + "' differs from entry namespace '" + namespace + "'");
      }
      if (!seen.add(endpoint)) {
        throw WireValidationException.malformed(field + ".endpoint", "duplicate member endpoint " + endpoint);
      }
      Set<WorkerRole> roles = WorkerRole.fromWireSet(field + ".roles", raw.roles());
      KvPoolId poolId = raw.poolId() == null ? null : KvPoolId.fromWire(raw.poolId());
      members.add(new TopologyMember(endpoint, List.copyOf(roles), Optional.ofNullable(poolId)));
    }
    Set<WorkerRole> duplicates = roleSet("duplicate_role_endpoints", wire.duplicateRoleEndpoints());
    for (WorkerRole role : duplicates) {
      if (role != WorkerRole.PREFILL && role != WorkerRole.DECODE) {
        throw WireValidationException.malformed(
            "duplicate_role_endpoints", "only prefill and decode may be reported, got " + role.text());
      }
    }
    List<AdapterReadiness> adapters = new ArrayList<>();
    List<@Nullable AdapterWire> rawAdapters = wire.adapters();
    if (rawAdapters != null) {
      Set<String> names = new HashSet<>();
      for (int i = 0; i < rawAdapters.size(); i++) {
        AdapterWire raw = rawAdapters.get(i);
        String field = "adapters[" + i + "]";
        if (raw == null) {
          throw WireValidationException.malformed(field, "adapter is missing");
        }
        String name = WireText.check(field + ".canonical_model_id", raw.canonicalModelId());
        ServingReadinessState adapterState = ServingReadinessState.fromWire(raw.state());
        Set<WorkerRole> adapterMissing = roleSet(field + ".missing_roles", raw.missingRoles());
        if (!names.add(name)) {
          throw WireValidationException.malformed(field + ".canonical_model_id", "duplicate adapter " + name);
        }
        adapters.add(new AdapterReadiness(name, adapterState, List.copyOf(adapterMissing)));
      }
    }
    return new TopologyEntry(
        namespace, model, state, List.copyOf(present), List.copyOf(missing), members,
        List.copyOf(duplicates), wire.legacyFallbackActive(), adapters);
  }

  /** A possibly empty role set: UNSPECIFIED or a duplicate ⇒ malformed, unknown ⇒ unsupported. */
  private static Set<WorkerRole> roleSet(String field, int @Nullable [] values) throws WireValidationException {
    if (values == null || values.length == 0) {
      return EnumSet.noneOf(WorkerRole.class);
    }
    return WorkerRole.fromWireSet(field, values);
  }
}
