package dev.kvrelay.grpc.wire;

import static dev.kvrelay.grpc.wire.IdentityCodec.CONTRACT_MARKER_BITS;
import static dev.kvrelay.grpc.wire.IdentityCodec.PROTOCOL_VERSION;
import static dev.kvrelay.grpc.wire.IdentityCodec.endpointToProto;
import static dev.kvrelay.grpc.wire.IdentityCodec.envelope;
import static dev.kvrelay.grpc.wire.IdentityCodec.fromProto;
import static dev.kvrelay.grpc.wire.IdentityCodec.producerToProto;
import static dev.kvrelay.grpc.wire.IdentityCodec.toProto;

import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.grpc.proto.BaseModelTarget;
import dev.kvrelay.grpc.proto.DynamoEndpointId;
import dev.kvrelay.grpc.proto.KvPoolCatalogSnapshot;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.KvPoolDescriptor;
import dev.kvrelay.grpc.proto.KvQuerySemantics;
import dev.kvrelay.grpc.proto.LoraModelTarget;
import dev.kvrelay.grpc.proto.ModelRegistration;
import dev.kvrelay.grpc.proto.ModelTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable (stateless): the codec of the catalog family — {@code KvPoolCatalogUpdate} and the pool descriptors it
 * carries (wan-grpc.md §1.3, §3.1).
 */
final class CatalogCodec {
  private CatalogCodec() {}

  /** One descriptor (the producer's validated value). */
  static KvPoolDescriptor encodeDescriptor(dev.kvrelay.engine.wan.KvPoolDescriptor descriptor) {
    return descriptorToProto(DescriptorWire.of(descriptor));
  }

  /**
   * One descriptor from its wire shape, as given: absent parts stay absent, raw enum numbers are kept.
   *
   * @throws NullPointerException if a list element is {@code null} (protobuf cannot carry it)
   */
  static KvPoolDescriptor descriptorToProto(DescriptorWire wire) {
    KvPoolDescriptor.Builder b = KvPoolDescriptor.newBuilder();
    if (wire.producer() != null) {
      b.setProducer(producerToProto(wire.producer()));
    }
    DescriptorWire.Endpoint endpoint = wire.servingEndpoint();
    if (endpoint != null) {
      b.setServingEndpoint(endpointToProto(endpoint.namespace(), endpoint.component(), endpoint.endpoint()));
    }
    List<DescriptorWire.@Nullable Registration> registrations = wire.registrations();
    if (registrations != null) {
      for (DescriptorWire.Registration r : registrations) {
        b.addRegistrations(registrationToProto(Objects.requireNonNull(r, "registration")));
      }
    }
    DescriptorWire.QuerySemantics semantics = wire.querySemantics();
    if (semantics != null) {
      b.setQuerySemantics(KvQuerySemantics.newBuilder()
          .setKvBlockSize(semantics.kvBlockSize()).setHashFormatValue(semantics.hashFormat()));
    }
    List<@Nullable Integer> roles = wire.poolRoles();
    if (roles != null) {
      for (Integer role : roles) {
        b.addPoolRolesValue(Objects.requireNonNull(role, "pool role"));
      }
    }
    return b.build();
  }

  private static ModelRegistration registrationToProto(DescriptorWire.Registration r) {
    ModelRegistration.Builder b = ModelRegistration.newBuilder();
    if (r.canonicalModelId() != null) {
      b.setCanonicalModelId(r.canonicalModelId());
    }
    dev.kvrelay.api.ModelTarget.WireCase targetCase = r.targetCase();
    if (targetCase != null) {
      ModelTarget.Builder t = ModelTarget.newBuilder();
      switch (targetCase) {
        case BASE -> {
          BaseModelTarget.Builder base = BaseModelTarget.newBuilder();
          if (r.baseModel() != null) {
            base.setBaseModel(r.baseModel());
          }
          t.setBase(base);
        }
        case LORA -> {
          LoraModelTarget.Builder lora = LoraModelTarget.newBuilder();
          if (r.baseModel() != null) {
            lora.setBaseModel(r.baseModel());
          }
          if (r.adapter() != null) {
            lora.setAdapter(r.adapter());
          }
          t.setLora(lora);
        }
        case NOT_SET -> {
          // present target message, unset oneof
        }
      }
      b.setTarget(t);
    }
    List<@Nullable String> aliases = r.aliases();
    if (aliases != null) {
      for (String alias : aliases) {
        b.addAliases(Objects.requireNonNull(alias, "alias"));
      }
    }
    return b.build();
  }

  /** A received descriptor, unvalidated: feed it to {@code CatalogValidator}. */
  static DescriptorWire decodeDescriptor(KvPoolDescriptor descriptor) {
    DescriptorWire.Endpoint endpoint = null;
    if (descriptor.hasServingEndpoint()) {
      DynamoEndpointId e = descriptor.getServingEndpoint();
      endpoint = new DescriptorWire.Endpoint(e.getNamespace(), e.getComponent(), e.getEndpoint());
    }
    List<DescriptorWire.@Nullable Registration> registrations = new ArrayList<>(descriptor.getRegistrationsCount());
    for (ModelRegistration r : descriptor.getRegistrationsList()) {
      registrations.add(registrationFromProto(r));
    }
    DescriptorWire.QuerySemantics semantics = null;
    if (descriptor.hasQuerySemantics()) {
      KvQuerySemantics s = descriptor.getQuerySemantics();
      semantics = new DescriptorWire.QuerySemantics(s.getKvBlockSize(), s.getHashFormatValue());
    }
    return new DescriptorWire(
        descriptor.hasProducer() ? fromProto(descriptor.getProducer()) : null,
        endpoint,
        registrations,
        semantics,
        new ArrayList<@Nullable Integer>(descriptor.getPoolRolesValueList()));
  }

  private static DescriptorWire.Registration registrationFromProto(ModelRegistration r) {
    dev.kvrelay.api.ModelTarget.WireCase targetCase = null;
    String baseModel = null;
    String adapter = null;
    if (r.hasTarget()) {
      ModelTarget t = r.getTarget();
      switch (t.getTargetCase()) {
        case BASE -> {
          targetCase = dev.kvrelay.api.ModelTarget.WireCase.BASE;
          baseModel = t.getBase().getBaseModel();
        }
        case LORA -> {
          targetCase = dev.kvrelay.api.ModelTarget.WireCase.LORA;
          baseModel = t.getLora().getBaseModel();
          adapter = t.getLora().getAdapter();
        }
        default -> targetCase = dev.kvrelay.api.ModelTarget.WireCase.NOT_SET;
      }
    }
    return new DescriptorWire.Registration(r.getCanonicalModelId(), targetCase, baseModel, adapter,
        new ArrayList<@Nullable String>(r.getAliasesList()));
  }

  /** {@code KvPoolCatalogUpdate} for a published catalog (the server path). */
  static KvPoolCatalogUpdate encodeSnapshot(CatalogSnapshot snapshot) {
    KvPoolCatalogSnapshot.Builder pools = KvPoolCatalogSnapshot.newBuilder();
    for (dev.kvrelay.engine.wan.KvPoolDescriptor d : snapshot.pools()) {
      pools.addPools(encodeDescriptor(d));
    }
    return KvPoolCatalogUpdate.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(snapshot.identity()))
        .setRevision(snapshot.revision())
        .setSnapshot(pools)
        .setContractMarker(CONTRACT_MARKER_BITS)
        .build();
  }

  /** {@code KvPoolCatalogUpdate} carrying exactly the envelope and wire descriptors of {@code update}. */
  static KvPoolCatalogUpdate encodeUpdate(CatalogUpdate update) {
    KvPoolCatalogSnapshot.Builder pools = KvPoolCatalogSnapshot.newBuilder();
    for (DescriptorWire d : update.pools()) {
      pools.addPools(descriptorToProto(d));
    }
    KvPoolCatalogUpdate.Builder b = KvPoolCatalogUpdate.newBuilder()
        .setProtocolVersion(update.protocolVersion())
        .setRevision(update.revision())
        .setSnapshot(pools)
        .setContractMarker((int) update.contractMarker());
    if (update.relay() != null) {
      b.setRelay(toProto(update.relay()));
    }
    return b.build();
  }

  /**
   * A received catalog update for {@code CatalogView.apply}, which checks the envelope and validates each
   * descriptor. The snapshot is judged only once the envelope passes, so a bad marker always wins.
   *
   * @throws WireValidationException (malformed, field {@code snapshot}) if the envelope passes but the
   *     always-set snapshot is absent
   */
  static CatalogUpdate decodeUpdate(KvPoolCatalogUpdate update) throws WireValidationException {
    WireEnvelope envelope =
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null);
    List<DescriptorWire> pools = new ArrayList<>(update.getSnapshot().getPoolsCount());
    if (envelope.valid()) {
      if (!update.hasSnapshot()) {
        throw WireValidationException.malformed("snapshot", "catalog snapshot is missing");
      }
      for (KvPoolDescriptor d : update.getSnapshot().getPoolsList()) {
        pools.add(decodeDescriptor(d));
      }
    }
    return new CatalogUpdate(envelope.protocolVersion(), envelope.contractMarker(), envelope.relay(),
        update.getRevision(), pools);
  }
}
