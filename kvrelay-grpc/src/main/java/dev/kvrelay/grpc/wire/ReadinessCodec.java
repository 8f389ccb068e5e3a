package dev.kvrelay.grpc.wire;

import static dev.kvrelay.grpc.wire.IdentityCodec.CONTRACT_MARKER_BITS;
import static dev.kvrelay.grpc.wire.IdentityCodec.PROTOCOL_VERSION;
import static dev.kvrelay.grpc.wire.IdentityCodec.endpointToProto;
import static dev.kvrelay.grpc.wire.IdentityCodec.envelope;
import static dev.kvrelay.grpc.wire.IdentityCodec.fromProto;
import static dev.kvrelay.grpc.wire.IdentityCodec.toProto;

import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import dev.kvrelay.grpc.proto.AdapterReadiness;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.TopologyEntry;
import dev.kvrelay.grpc.proto.TopologyMember;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Immutable (stateless): the codec of the readiness family — {@code ServingReadinessUpdate} and its topology
 * entries (wan-grpc.md §1.6).
 */
final class ReadinessCodec {
  private ReadinessCodec() {}

  /** {@code ServingReadinessUpdate} for a published topology of {@code relay}. */
  static ServingReadinessUpdate encodeUpdate(dev.kvrelay.api.RelayIdentity relay, TopologySnapshot snapshot) {
    ServingReadinessUpdate.Builder b = ServingReadinessUpdate.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setRevision(snapshot.revision())
        .setContractMarker(CONTRACT_MARKER_BITS);
    for (dev.kvrelay.engine.wan.TopologyEntry e : snapshot.entries()) {
      b.addEntries(encodeEntry(e));
    }
    return b.build();
  }

  /** One {@code TopologyEntry}. */
  static TopologyEntry encodeEntry(dev.kvrelay.engine.wan.TopologyEntry entry) {
    TopologyEntry.Builder b = TopologyEntry.newBuilder()
        .setNamespace(entry.namespace())
        .setCanonicalModelId(entry.canonicalModelId())
        .setStateValue(entry.state().wireValue())
        .setLegacyFallbackActive(entry.legacyFallbackActive());
    for (WorkerRole r : entry.presentRoles()) {
      b.addPresentRolesValue(r.wireValue());
    }
    for (WorkerRole r : entry.missingRoles()) {
      b.addMissingRolesValue(r.wireValue());
    }
    for (dev.kvrelay.engine.wan.TopologyMember m : entry.members()) {
      TopologyMember.Builder mb = TopologyMember.newBuilder().setEndpoint(endpointToProto(
          m.endpoint().namespace(), m.endpoint().component(), m.endpoint().endpoint()));
      for (WorkerRole r : m.roles()) {
        mb.addRolesValue(r.wireValue());
      }
      m.poolId().ifPresent(p -> mb.setPoolId(toProto(p)));
      b.addMembers(mb);
    }
    for (WorkerRole r : entry.duplicateRoleEndpoints()) {
      b.addDuplicateRoleEndpointsValue(r.wireValue());
    }
    for (dev.kvrelay.engine.wan.AdapterReadiness a : entry.adapters()) {
      AdapterReadiness.Builder ab = AdapterReadiness.newBuilder()
          .setCanonicalModelId(a.canonicalModelId()).setStateValue(a.state().wireValue());
      for (WorkerRole r : a.missingRoles()) {
        ab.addMissingRolesValue(r.wireValue());
      }
      b.addAdapters(ab);
    }
    return b.build();
  }

  /** A received readiness update, unvalidated (envelope and raw entries). */
  static ReadinessWire decodeUpdate(ServingReadinessUpdate update) {
    List<TopologyEntryValidator.@Nullable EntryWire> entries = new ArrayList<>(update.getEntriesCount());
    for (TopologyEntry e : update.getEntriesList()) {
      entries.add(decodeEntry(e));
    }
    return new ReadinessWire(
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null),
        update.getRevision(), entries);
  }

  /** A received {@code TopologyEntry}, unvalidated: feed it to {@code TopologyEntryValidator}. */
  static TopologyEntryValidator.EntryWire decodeEntry(TopologyEntry entry) {
    List<TopologyEntryValidator.@Nullable MemberWire> members = new ArrayList<>(entry.getMembersCount());
    for (TopologyMember m : entry.getMembersList()) {
      String namespace = null;
      String component = null;
      String endpoint = null;
      if (m.hasEndpoint()) {
        namespace = m.getEndpoint().getNamespace();
        component = m.getEndpoint().getComponent();
        endpoint = m.getEndpoint().getEndpoint();
      }
      members.add(new TopologyEntryValidator.MemberWire(namespace, component, endpoint,
          ints(m.getRolesValueList()), m.hasPoolId() ? fromProto(m.getPoolId()) : null));
    }
    List<TopologyEntryValidator.@Nullable AdapterWire> adapters = new ArrayList<>(entry.getAdaptersCount());
    for (AdapterReadiness a : entry.getAdaptersList()) {
      adapters.add(new TopologyEntryValidator.AdapterWire(
          a.getCanonicalModelId(), a.getStateValue(), ints(a.getMissingRolesValueList())));
    }
    return new TopologyEntryValidator.EntryWire(entry.getNamespace(), entry.getCanonicalModelId(),
        entry.getStateValue(), ints(entry.getPresentRolesValueList()), ints(entry.getMissingRolesValueList()),
        members, ints(entry.getDuplicateRoleEndpointsValueList()), entry.getLegacyFallbackActive(), adapters);
  }

  private static int[] ints(List<Integer> values) {
    int[] out = new int[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }
}
