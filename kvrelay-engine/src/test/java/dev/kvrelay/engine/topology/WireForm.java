package dev.kvrelay.engine.topology;

import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import java.util.ArrayList;
import java.util.List;

/** Test helper: renders an entry into its raw wire form (an independent inverse of the validator). */
final class WireForm {
  private WireForm() {}

  static int[] roles(List<WorkerRole> roles) {
    return roles.stream().mapToInt(WorkerRole::wireValue).toArray();
  }

  static TopologyEntryValidator.EntryWire of(TopologyEntry e) {
    List<TopologyEntryValidator.MemberWire> members = new ArrayList<>();
    for (TopologyMember m : e.members()) {
      members.add(new TopologyEntryValidator.MemberWire(
          m.endpoint().namespace(), m.endpoint().component(), m.endpoint().endpoint(), roles(m.roles()),
          m.poolId().map(p -> p.toWire()).orElse(null)));
    }
    List<TopologyEntryValidator.AdapterWire> adapters = new ArrayList<>();
    for (AdapterReadiness a : e.adapters()) {
      adapters.add(new TopologyEntryValidator.AdapterWire(a.canonicalModelId(), a.state().wireValue(), roles(a.missingRoles())));
    }
    return new TopologyEntryValidator.EntryWire(
        e.namespace(), e.canonicalModelId(), e.state().wireValue(), roles(e.presentRoles()), roles(e.missingRoles()),
        new ArrayList<>(members), roles(e.duplicateRoleEndpoints()), e.legacyFallbackActive(), new ArrayList<>(adapters));
  }
}
