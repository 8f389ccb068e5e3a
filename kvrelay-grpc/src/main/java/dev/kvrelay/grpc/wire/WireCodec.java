package dev.kvrelay.grpc.wire;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.CatalogUpdate;
import dev.kvrelay.engine.wan.DataStatus;
import dev.kvrelay.engine.wan.DescriptorWire;
import dev.kvrelay.engine.wan.PoolFrame;
import dev.kvrelay.engine.wan.RelayEnvelope;
import dev.kvrelay.engine.wan.ServingLoadView;
import dev.kvrelay.engine.wan.TopologyEntryValidator;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.grpc.proto.AdapterReadiness;
import dev.kvrelay.grpc.proto.BaseModelTarget;
import dev.kvrelay.grpc.proto.CkfFormat;
import dev.kvrelay.grpc.proto.DigestIdentity;
import dev.kvrelay.grpc.proto.DynamoEndpointId;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.IndexerDomainId;
import dev.kvrelay.grpc.proto.KvPoolCatalogSnapshot;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.KvPoolDescriptor;
import dev.kvrelay.grpc.proto.KvPoolId;
import dev.kvrelay.grpc.proto.KvPoolLoadEntry;
import dev.kvrelay.grpc.proto.KvPoolLoadUpdate;
import dev.kvrelay.grpc.proto.KvQuerySemantics;
import dev.kvrelay.grpc.proto.LoadView;
import dev.kvrelay.grpc.proto.LoraModelTarget;
import dev.kvrelay.grpc.proto.ModelDeploymentStatus;
import dev.kvrelay.grpc.proto.ModelRegistration;
import dev.kvrelay.grpc.proto.ModelServingLoad;
import dev.kvrelay.grpc.proto.ModelTarget;
import dev.kvrelay.grpc.proto.PoolDeploymentStatus;
import dev.kvrelay.grpc.proto.PoolServingLoad;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.RelayIdentity;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.proto.RequestLifecycleStats;
import dev.kvrelay.grpc.proto.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.SubscribeKvPoolLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.SubscribeServingLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeServingReadinessRequest;
import dev.kvrelay.grpc.proto.TokenLoadStats;
import dev.kvrelay.grpc.proto.TopologyEntry;
import dev.kvrelay.grpc.proto.TopologyMember;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (stateless apart from two one-entry memos of immutable values): the one mapping between
 * the engine's values and the {@code dynamo.kvrelay.v1} protobuf messages (wan-grpc.md §1), used by the server and
 * the client alike.
 *
 * <p>Pool frames repeat one producer key per stream, so the frame codec remembers the last producer it encoded
 * (engine value → message) and the last one it validated (message → engine value): both mappings are pure
 * functions, a memo hit returns what the full conversion would, and a miss just converts and replaces the memo
 * (wan-latency profile: the per-frame producer validation was ≈ 3 % of the relay's CPU on the client).
 *
 * <p>Encoding ({@code toProto}) takes engine values and stamps every top-level message with
 * {@code protocol_version = 1} and {@code contract_marker = 0x4B565231}; enum numbers come from the api enums'
 * {@code wireValue()}. Decoding ({@code fromProto}) yields the engine's consumer inputs without judging them:
 * absent sub-messages become {@code null}, enum fields keep their raw numbers (unknown numbers survive), an unset
 * oneof becomes {@link dev.kvrelay.api.ModelTarget.WireCase#NOT_SET}; the existing validators
 * ({@code ProducerIdentity.fromWire}, {@code CatalogValidator}, {@code TopologyEntryValidator}) then decide
 * malformed vs unsupported. Unsigned 64-bit values stay in {@code long}s, {@code uint32} in {@code int} bits.
 */
public final class WireCodec {

  /** {@code RELAY_CONTRACT_MARKER} as the {@code fixed32} bits protobuf-java uses. */
  public static final int CONTRACT_MARKER_BITS = (int) RelayEnvelope.CONTRACT_MARKER;
  /** {@code RELAY_PROTOCOL_VERSION}. */
  public static final int PROTOCOL_VERSION = RelayEnvelope.PROTOCOL_VERSION;

  private WireCodec() {}

  /** True if a received {@code fixed32 contract_marker} is {@code 0x4B565231}. */
  public static boolean markerMatches(int contractMarkerBits) {
    return Integer.toUnsignedLong(contractMarkerBits) == RelayEnvelope.CONTRACT_MARKER;
  }

  // ============================================================ identity

  /** {@code RelayIdentity} (two fixed64, every value valid). */
  public static RelayIdentity toProto(dev.kvrelay.api.RelayIdentity relay) {
    return RelayIdentity.newBuilder()
        .setDrtInstanceId(relay.drtInstanceId())
        .setRelayIncarnation(relay.relayIncarnation())
        .build();
  }

  /** The relay identity of a received message (every value is valid). */
  public static dev.kvrelay.api.RelayIdentity fromProto(RelayIdentity relay) {
    return new dev.kvrelay.api.RelayIdentity(relay.getDrtInstanceId(), relay.getRelayIncarnation());
  }

  /** A producer key as sent in catalogs, frames, loads and {@code expected_producer}. */
  public static ProducerIdentity toProto(dev.kvrelay.api.ProducerIdentity producer) {
    return producerToProto(producer.toWire());
  }

  /** The wire shape of a producer key as given (absent sub-messages stay absent). */
  public static ProducerIdentity producerToProto(dev.kvrelay.api.ProducerIdentity.Wire wire) {
    ProducerIdentity.Builder b = ProducerIdentity.newBuilder()
        .setProducerIncarnation(wire.producerIncarnation())
        .setLayoutGeneration(wire.layoutGeneration());
    if (wire.poolId() != null) {
      b.setPoolId(poolIdToProto(wire.poolId()));
    }
    if (wire.ckfFormat() != null) {
      b.setCkfFormat(formatToProto(wire.ckfFormat()));
    }
    return b.build();
  }

  /** A received producer key, unvalidated: feed it to {@code ProducerIdentity.fromWire}. */
  public static dev.kvrelay.api.ProducerIdentity.Wire fromProto(ProducerIdentity producer) {
    return new dev.kvrelay.api.ProducerIdentity.Wire(
        producer.hasPoolId() ? fromProto(producer.getPoolId()) : null,
        producer.getProducerIncarnation(),
        producer.getLayoutGeneration(),
        producer.hasCkfFormat() ? fromProto(producer.getCkfFormat()) : null);
  }

  /**
   * A received producer key, validated with {@code ProducerIdentity.fromWire} (§1.8 order).
   *
   * @param producer {@code null} if the field is absent (malformed)
   */
  public static dev.kvrelay.api.ProducerIdentity producer(@Nullable ProducerIdentity producer)
      throws WireValidationException {
    return dev.kvrelay.api.ProducerIdentity.fromWire(producer == null ? null : fromProto(producer));
  }

  /** {@code KvPoolId}, stamped with identity_version 1. */
  public static KvPoolId toProto(dev.kvrelay.api.KvPoolId poolId) {
    return poolIdToProto(poolId.toWire());
  }

  private static KvPoolId poolIdToProto(dev.kvrelay.api.KvPoolId.Wire wire) {
    KvPoolId.Builder b = KvPoolId.newBuilder().setIdentityVersion(wire.identityVersion()).setDcId(wire.dcId());
    dev.kvrelay.api.IndexerDomainId.Wire domain = wire.indexerDomain();
    if (domain != null) {
      IndexerDomainId.Builder d = IndexerDomainId.newBuilder();
      if (domain.cacheSemantics() != null) {
        d.setCacheSemantics(digestToProto(domain.cacheSemantics()));
      }
      if (domain.routingScope() != null) {
        d.setRoutingScope(digestToProto(domain.routingScope()));
      }
      b.setIndexerDomain(d);
    }
    return b.build();
  }

  private static DigestIdentity digestToProto(dev.kvrelay.api.DigestIdentity.Wire wire) {
    DigestIdentity.Builder b = DigestIdentity.newBuilder().setSourceValue(wire.source());
    byte[] digest = wire.digest();
    if (digest != null) {
      b.setDigest(ByteString.copyFrom(digest));
    }
    return b.build();
  }

  /** A received pool id, unvalidated: feed it to {@code KvPoolId.fromWire}. */
  public static dev.kvrelay.api.KvPoolId.Wire fromProto(KvPoolId poolId) {
    dev.kvrelay.api.IndexerDomainId.Wire domain = null;
    if (poolId.hasIndexerDomain()) {
      IndexerDomainId d = poolId.getIndexerDomain();
      domain = new dev.kvrelay.api.IndexerDomainId.Wire(
          d.hasCacheSemantics() ? fromProto(d.getCacheSemantics()) : null,
          d.hasRoutingScope() ? fromProto(d.getRoutingScope()) : null);
    }
    return new dev.kvrelay.api.KvPoolId.Wire(poolId.getIdentityVersion(), domain, poolId.getDcId());
  }

  private static dev.kvrelay.api.DigestIdentity.Wire fromProto(DigestIdentity digest) {
    return new dev.kvrelay.api.DigestIdentity.Wire(digest.getDigest().toByteArray(), digest.getSourceValue());
  }

  private static CkfFormat formatToProto(dev.kvrelay.api.CkfFormat.Wire wire) {
    return CkfFormat.newBuilder()
        .setFormatVersion(wire.formatVersion())
        .setSeed(wire.seed())
        .setBucketCount(wire.bucketCount())
        .setFingerprintBits(wire.fingerprintBits())
        .setSlotsPerBucket(wire.slotsPerBucket())
        .build();
  }

  private static dev.kvrelay.api.CkfFormat.Wire fromProto(CkfFormat format) {
    return new dev.kvrelay.api.CkfFormat.Wire(format.getFormatVersion(), format.getSeed(), format.getBucketCount(),
        format.getFingerprintBits(), format.getSlotsPerBucket());
  }

  // ============================================================ requests and RelayInfo

  /** {@code RelayInfoRequest{contract_marker}}. */
  public static RelayInfoRequest relayInfoRequest() {
    return RelayInfoRequest.newBuilder().setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code WatchKvPoolCatalogRequest}. */
  public static WatchKvPoolCatalogRequest watchCatalogRequest(String subscriberId) {
    return WatchKvPoolCatalogRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code SubscribeKvPoolRequest} with the catalog's producer key, unmodified. */
  public static SubscribeKvPoolRequest subscribePoolRequest(
      String subscriberId, dev.kvrelay.api.ProducerIdentity expected) {
    return SubscribeKvPoolRequest.newBuilder()
        .setSubscriberId(subscriberId)
        .setExpectedProducer(toProto(expected))
        .setContractMarker(CONTRACT_MARKER_BITS)
        .build();
  }

  /** {@code SubscribeServingReadinessRequest}. */
  public static SubscribeServingReadinessRequest readinessRequest(String subscriberId) {
    return SubscribeServingReadinessRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code SubscribeKvPoolLoadRequest}. */
  public static SubscribeKvPoolLoadRequest poolLoadRequest(String subscriberId) {
    return SubscribeKvPoolLoadRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code SubscribeServingLoadRequest}. */
  public static SubscribeServingLoadRequest servingLoadRequest(String subscriberId) {
    return SubscribeServingLoadRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** The {@code expected_producer} of a request, unvalidated; {@code null} when absent. */
  public static dev.kvrelay.api.ProducerIdentity.@Nullable Wire expectedProducer(SubscribeKvPoolRequest request) {
    return request.hasExpectedProducer() ? fromProto(request.getExpectedProducer()) : null;
  }

  /** {@code RelayInfo{protocol_version = 1, relay, marker}}. */
  public static RelayInfo relayInfo(dev.kvrelay.api.RelayIdentity relay) {
    return RelayInfo.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setContractMarker(CONTRACT_MARKER_BITS)
        .build();
  }

  /** The envelope of a received {@code RelayInfo} (its whole content). */
  public static WireEnvelope fromProto(RelayInfo info) {
    return envelope(info.getProtocolVersion(), info.getContractMarker(), info.hasRelay() ? info.getRelay() : null);
  }

  private static WireEnvelope envelope(int protocolVersion, int markerBits, @Nullable RelayIdentity relay) {
    return new WireEnvelope(protocolVersion, Integer.toUnsignedLong(markerBits), relay == null ? null : fromProto(relay));
  }

  // ============================================================ catalog

  /** One descriptor (the producer's validated value). */
  public static KvPoolDescriptor toProto(dev.kvrelay.engine.wan.KvPoolDescriptor descriptor) {
    return descriptorToProto(descriptor.toWire());
  }

  /**
   * One descriptor from its wire shape, as given: absent parts stay absent, raw enum numbers are kept.
   *
   * @throws NullPointerException if a list element is {@code null} (protobuf cannot carry it)
   */
  public static KvPoolDescriptor descriptorToProto(DescriptorWire wire) {
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

  private static DynamoEndpointId endpointToProto(
      @Nullable String namespace, @Nullable String component, @Nullable String endpoint) {
    DynamoEndpointId.Builder b = DynamoEndpointId.newBuilder();
    if (namespace != null) {
      b.setNamespace(namespace);
    }
    if (component != null) {
      b.setComponent(component);
    }
    if (endpoint != null) {
      b.setEndpoint(endpoint);
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
  public static DescriptorWire fromProto(KvPoolDescriptor descriptor) {
    DescriptorWire.Endpoint endpoint = null;
    if (descriptor.hasServingEndpoint()) {
      DynamoEndpointId e = descriptor.getServingEndpoint();
      endpoint = new DescriptorWire.Endpoint(e.getNamespace(), e.getComponent(), e.getEndpoint());
    }
    List<DescriptorWire.@Nullable Registration> registrations = new ArrayList<>(descriptor.getRegistrationsCount());
    for (ModelRegistration r : descriptor.getRegistrationsList()) {
      registrations.add(fromProto(r));
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

  private static DescriptorWire.Registration fromProto(ModelRegistration r) {
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
  public static KvPoolCatalogUpdate toProto(CatalogSnapshot snapshot) {
    KvPoolCatalogSnapshot.Builder pools = KvPoolCatalogSnapshot.newBuilder();
    for (dev.kvrelay.engine.wan.KvPoolDescriptor d : snapshot.pools()) {
      pools.addPools(toProto(d));
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
  public static KvPoolCatalogUpdate toProto(CatalogUpdate update) {
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
  public static CatalogUpdate fromProto(KvPoolCatalogUpdate update) throws WireValidationException {
    WireEnvelope envelope =
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null);
    List<DescriptorWire> pools = new ArrayList<>(update.getSnapshot().getPoolsCount());
    if (envelope.valid()) {
      if (!update.hasSnapshot()) {
        throw WireValidationException.malformed("snapshot", "catalog snapshot is missing");
      }
      for (KvPoolDescriptor d : update.getSnapshot().getPoolsList()) {
        pools.add(fromProto(d));
      }
    }
    return new CatalogUpdate(envelope.protocolVersion(), envelope.contractMarker(), envelope.relay(),
        update.getRevision(), pools);
  }

  // ============================================================ pool frames

  /** Immutable: a producer key and its message, as last converted by the frame codec. */
  private record ProducerMemo(dev.kvrelay.api.ProducerIdentity value, ProducerIdentity proto) { }

  /** Last producer encoded into a frame (racy publication of an immutable record is safe). */
  private static volatile @Nullable ProducerMemo encodedProducer;
  /** Last producer message validated out of a frame. */
  private static volatile @Nullable ProducerMemo decodedProducer;

  /** {@link #toProto(dev.kvrelay.api.ProducerIdentity)} through the one-entry encode memo. */
  static ProducerIdentity frameProducerToProto(dev.kvrelay.api.ProducerIdentity producer) {
    ProducerMemo m = encodedProducer;
    if (m != null && (m.value() == producer || m.value().equals(producer))) {
      return m.proto();
    }
    ProducerIdentity proto = toProto(producer);
    encodedProducer = new ProducerMemo(producer, proto);
    return proto;
  }

  /** {@link #producer(ProducerIdentity)} through the one-entry decode memo (only valid keys are remembered). */
  static dev.kvrelay.api.ProducerIdentity frameProducer(ProducerIdentity proto) throws WireValidationException {
    ProducerMemo m = decodedProducer;
    if (m != null && (m.proto() == proto || m.proto().equals(proto))) {
      return m.value();
    }
    dev.kvrelay.api.ProducerIdentity value = producer(proto);
    decodedProducer = new ProducerMemo(value, proto);
    return value;
  }

  /**
   * {@code FilterUpdate} for a frame: the raw kind number is kept; the payload is wrapped without a copy
   * ({@link PoolFrame}'s payload is never written again).
   */
  public static FilterUpdate toProto(PoolFrame frame) {
    FilterUpdate.Builder b = FilterUpdate.newBuilder()
        .setProtocolVersion(frame.protocolVersion())
        .setBaseSequence(frame.baseSequence())
        .setSequence(frame.sequence())
        .setSendTsUs(frame.sendTsUs())
        .setKindValue(frame.kindNumber())
        .setPayload(UnsafeByteOperations.unsafeWrap(frame.payload()))
        .setContractMarker((int) frame.contractMarker());
    if (frame.relay() != null) {
      b.setRelay(toProto(frame.relay()));
    }
    if (frame.producer() != null) {
      b.setProducer(frameProducerToProto(frame.producer()));
    }
    return b.build();
  }

  /**
   * A received frame for {@code PoolReplica.apply}, which checks the envelope, the producer and the kind. The
   * kind number is kept raw (an unknown kind survives). A present producer is validated only once the envelope
   * passes (a bad marker always wins; with a bad envelope the producer is left {@code null}).
   *
   * @throws WireValidationException the producer's first broken rule (§1.8)
   */
  public static PoolFrame fromProto(FilterUpdate update) throws WireValidationException {
    WireEnvelope envelope =
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null);
    dev.kvrelay.api.ProducerIdentity producer = null;
    if (envelope.valid() && update.hasProducer()) {
      producer = frameProducer(update.getProducer());
    }
    return new PoolFrame(envelope.protocolVersion(), envelope.contractMarker(), envelope.relay(), producer,
        update.getBaseSequence(), update.getSequence(), update.getSendTsUs(), update.getKindValue(),
        update.getPayload().toByteArray());
  }

  // ============================================================ readiness

  /** {@code ServingReadinessUpdate} for a published topology of {@code relay}. */
  public static ServingReadinessUpdate toProto(dev.kvrelay.api.RelayIdentity relay, TopologySnapshot snapshot) {
    ServingReadinessUpdate.Builder b = ServingReadinessUpdate.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setRevision(snapshot.revision())
        .setContractMarker(CONTRACT_MARKER_BITS);
    for (dev.kvrelay.engine.wan.TopologyEntry e : snapshot.entries()) {
      b.addEntries(toProto(e));
    }
    return b.build();
  }

  /** One {@code TopologyEntry}. */
  public static TopologyEntry toProto(dev.kvrelay.engine.wan.TopologyEntry entry) {
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
  public static ReadinessWire fromProto(ServingReadinessUpdate update) {
    List<TopologyEntryValidator.@Nullable EntryWire> entries = new ArrayList<>(update.getEntriesCount());
    for (TopologyEntry e : update.getEntriesList()) {
      entries.add(fromProto(e));
    }
    return new ReadinessWire(
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null),
        update.getRevision(), entries);
  }

  /** A received {@code TopologyEntry}, unvalidated: feed it to {@code TopologyEntryValidator}. */
  public static TopologyEntryValidator.EntryWire fromProto(TopologyEntry entry) {
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

  // ============================================================ pool load

  /** {@code KvPoolLoadUpdate} for a published window of {@code relay}. */
  public static KvPoolLoadUpdate toProto(
      dev.kvrelay.api.RelayIdentity relay, dev.kvrelay.engine.wan.KvPoolLoadUpdate window) {
    KvPoolLoadUpdate.Builder b = KvPoolLoadUpdate.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setWindowSequence(window.windowSequence())
        .setObservedMs(window.observedMs())
        .setWindowMs(window.windowMs())
        .setContractMarker(CONTRACT_MARKER_BITS);
    for (dev.kvrelay.engine.wan.KvPoolLoadEntry e : window.pools()) {
      b.addPools(KvPoolLoadEntry.newBuilder()
          .setProducer(toProto(e.producer()))
          .setKvUsedBlocks(e.kvUsedBlocks())
          .setTotalKvBlocks(e.totalKvBlocks())
          .setKvObservedRanks(u32(e.kvObservedRanks()))
          .setKvExpectedRanks(u32(e.kvExpectedRanks())));
    }
    return b.build();
  }

  /** A u32 count (0..2^32-1 in a long) as its {@code uint32} bits; larger values saturate. */
  private static int u32(long count) {
    return count < 0 || count > 0xFFFF_FFFFL ? -1 : (int) count;
  }

  /**
   * A received pool-load window. Each entry's producer is validated with {@code ProducerIdentity.fromWire};
   * an entry that fails is listed in {@link PoolLoadWindow#excluded()} instead of the update (it could never
   * join a catalog pool by ProducerKey). The envelope is not judged here: check it first.
   */
  public static PoolLoadWindow fromProto(KvPoolLoadUpdate update) {
    List<dev.kvrelay.engine.wan.KvPoolLoadEntry> entries = new ArrayList<>(update.getPoolsCount());
    List<ExcludedEntry> excluded = new ArrayList<>();
    for (int i = 0; i < update.getPoolsCount(); i++) {
      KvPoolLoadEntry e = update.getPools(i);
      try {
        dev.kvrelay.api.ProducerIdentity producer = producer(e.hasProducer() ? e.getProducer() : null);
        entries.add(new dev.kvrelay.engine.wan.KvPoolLoadEntry(producer, e.getKvUsedBlocks(), e.getTotalKvBlocks(),
            Integer.toUnsignedLong(e.getKvObservedRanks()), Integer.toUnsignedLong(e.getKvExpectedRanks())));
      } catch (WireValidationException x) {
        excluded.add(ExcludedEntry.of(i, x));
      }
    }
    return new PoolLoadWindow(
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null),
        new dev.kvrelay.engine.wan.KvPoolLoadUpdate(
            update.getWindowSequence(), update.getObservedMs(), update.getWindowMs(), entries),
        excluded);
  }

  // ============================================================ serving load

  /** {@code ServingLoadUpdate} for a published window of {@code relay}. */
  public static ServingLoadUpdate toProto(
      dev.kvrelay.api.RelayIdentity relay, dev.kvrelay.engine.wan.ServingLoadUpdate window) {
    ServingLoadUpdate.Builder b = ServingLoadUpdate.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setWindowSequence(window.windowSequence())
        .setObservedMs(window.observedMs())
        .setWindowMs(window.windowMs())
        .setContractMarker(CONTRACT_MARKER_BITS);
    for (dev.kvrelay.engine.wan.PoolServingLoad p : window.pools()) {
      PoolDeploymentStatus.Builder d = PoolDeploymentStatus.newBuilder();
      p.deployment().liveWorkers().ifPresent(d::setLiveWorkers);
      p.deployment().maxConcurrency().ifPresent(d::setMaxConcurrency);
      b.addPools(PoolServingLoad.newBuilder()
          .setProducer(toProto(p.producer())).setLoad(toProto(p.load())).setDeployment(d));
    }
    for (dev.kvrelay.engine.wan.ModelServingLoad m : window.models()) {
      ModelDeploymentStatus.Builder d = ModelDeploymentStatus.newBuilder()
          .setExpectedFrontends(m.deployment().expectedFrontends())
          .setObservedFrontends(m.deployment().observedFrontends())
          .setReadyFrontends(m.deployment().readyFrontends());
      for (dev.kvrelay.api.KvPoolId pool : m.deployment().servingPools()) {
        d.addServingPools(toProto(pool));
      }
      b.addModels(ModelServingLoad.newBuilder()
          .setNamespace(m.namespace()).setCanonicalModelId(m.canonicalModelId())
          .setLoad(toProto(m.load())).setDeployment(d));
    }
    return b.build();
  }

  private static LoadView toProto(ServingLoadView view) {
    LoadView.Builder b = LoadView.newBuilder()
        .setStatusValue(view.status().wireValue())
        .setSourceObservedMs(view.sourceObservedMs());
    view.requests().ifPresent(r -> {
      RequestLifecycleStats.Builder rb = RequestLifecycleStats.newBuilder()
          .setRequestsStartedTotal(r.requestsStartedTotal())
          .setRequestsCompletedTotal(r.requestsCompletedTotal())
          .setRequestsFailedTotal(r.requestsFailedTotal())
          .setRequestsCancelledTotal(r.requestsCancelledTotal());
      r.requestsAwaitingFirstToken().ifPresent(rb::setRequestsAwaitingFirstToken);
      r.requestsGenerating().ifPresent(rb::setRequestsGenerating);
      b.setRequests(rb);
    });
    dev.kvrelay.engine.wan.TokenLoadStats t = view.tokens();
    TokenLoadStats.Builder tb = TokenLoadStats.newBuilder();
    t.activePrefillTokens().ifPresent(tb::setActivePrefillTokens);
    t.activeDecodeBlocks().ifPresent(tb::setActiveDecodeBlocks);
    t.awaitingFirstTokenInputTokens().ifPresent(tb::setAwaitingFirstTokenInputTokens);
    t.inflightInputTokens().ifPresent(tb::setInflightInputTokens);
    t.inputTokensTotal().ifPresent(tb::setInputTokensTotal);
    t.outputTokensTotal().ifPresent(tb::setOutputTokensTotal);
    return b.setTokens(tb).build();
  }

  /**
   * A received serving-load window (wan-grpc.md §1.7), validated. Window rules first: the envelope
   * ({@link WireEnvelope#check()}); each pool's producer present and not malformed (an unsupported producer
   * quarantines only its entry); no producer key twice; each model's namespace and canonical model id valid
   * text, no key twice. Any of these makes the whole window unusable. Then each entry on its own: status
   * (UNSPECIFIED malformed, unknown unsupported), the presence rules of its kind, required sub-messages,
   * serving pools valid and unique; a failing entry is left out and listed.
   *
   * @throws WireValidationException the first broken window rule
   */
  public static ServingLoadWindow fromProto(ServingLoadUpdate update) throws WireValidationException {
    dev.kvrelay.api.RelayIdentity relay =
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null)
            .check();
    List<dev.kvrelay.api.@Nullable ProducerIdentity> producers = new ArrayList<>(update.getPoolsCount());
    List<ExcludedEntry> excludedPools = new ArrayList<>();
    Set<dev.kvrelay.api.ProducerIdentity> keys = new HashSet<>();
    for (int i = 0; i < update.getPoolsCount(); i++) {
      PoolServingLoad p = update.getPools(i);
      if (!p.hasProducer()) {
        throw WireValidationException.malformed("pools[" + i + "].producer", "pool producer is missing");
      }
      try {
        dev.kvrelay.api.ProducerIdentity producer = producer(p.getProducer());
        if (!keys.add(producer)) {
          throw WireValidationException.malformed("pools[" + i + "].producer", "duplicate producer " + producer);
        }
        producers.add(producer);
      } catch (WireValidationException e) {
        if (!e.isUnsupported()) {
          throw e;
        }
        producers.add(null);
        excludedPools.add(ExcludedEntry.of(i, e));
      }
    }
    Set<List<String>> modelKeys = new HashSet<>();
    for (int i = 0; i < update.getModelsCount(); i++) {
      ModelServingLoad m = update.getModels(i);
      String namespace = WireText.check("models[" + i + "].namespace", m.getNamespace());
      String model = WireText.check("models[" + i + "].canonical_model_id", m.getCanonicalModelId());
      if (!modelKeys.add(List.of(namespace, model))) {
        throw WireValidationException.malformed("models[" + i + "]", "duplicate model (" + namespace + ", " + model + ")");
      }
    }
    List<dev.kvrelay.engine.wan.PoolServingLoad> pools = new ArrayList<>(update.getPoolsCount());
    for (int i = 0; i < update.getPoolsCount(); i++) {
      dev.kvrelay.api.ProducerIdentity producer = producers.get(i);
      if (producer == null) {
        continue;
      }
      try {
        pools.add(poolEntry(producer, update.getPools(i)));
      } catch (WireValidationException e) {
        excludedPools.add(ExcludedEntry.of(i, e));
      }
    }
    excludedPools.sort((a, b) -> Integer.compare(a.index(), b.index()));
    List<dev.kvrelay.engine.wan.ModelServingLoad> models = new ArrayList<>(update.getModelsCount());
    List<ExcludedEntry> excludedModels = new ArrayList<>();
    for (int i = 0; i < update.getModelsCount(); i++) {
      try {
        models.add(modelEntry(update.getModels(i)));
      } catch (WireValidationException e) {
        excludedModels.add(ExcludedEntry.of(i, e));
      }
    }
    return new ServingLoadWindow(relay, new dev.kvrelay.engine.wan.ServingLoadUpdate(update.getWindowSequence(),
        update.getObservedMs(), update.getWindowMs(), pools, models), excludedPools, excludedModels);
  }

  private static dev.kvrelay.engine.wan.PoolServingLoad poolEntry(
      dev.kvrelay.api.ProducerIdentity producer, PoolServingLoad p) throws WireValidationException {
    if (!p.hasLoad()) {
      throw WireValidationException.malformed("load", "pool load view is missing");
    }
    LoadView load = p.getLoad();
    DataStatus status = DataStatus.fromWire(load.getStatusValue());
    boolean complete = status == DataStatus.COMPLETE;
    if (load.hasRequests()) {
      throw WireValidationException.malformed("load.requests", "a pool view carries no request stats");
    }
    if (!load.hasTokens()) {
      throw WireValidationException.malformed("load.tokens", "pool token load is missing");
    }
    TokenLoadStats t = load.getTokens();
    presence("load.tokens.active_prefill_tokens", t.hasActivePrefillTokens(), complete);
    presence("load.tokens.active_decode_blocks", t.hasActiveDecodeBlocks(), complete);
    presence("load.tokens.awaiting_first_token_input_tokens", t.hasAwaitingFirstTokenInputTokens(), false);
    presence("load.tokens.inflight_input_tokens", t.hasInflightInputTokens(), false);
    presence("load.tokens.input_tokens_total", t.hasInputTokensTotal(), false);
    presence("load.tokens.output_tokens_total", t.hasOutputTokensTotal(), false);
    if (!p.hasDeployment()) {
      throw WireValidationException.malformed("deployment", "pool deployment status is missing");
    }
    PoolDeploymentStatus d = p.getDeployment();
    try {
      return new dev.kvrelay.engine.wan.PoolServingLoad(producer,
          new ServingLoadView(Optional.empty(), fromProto(t), status, load.getSourceObservedMs()),
          new dev.kvrelay.engine.wan.PoolDeploymentStatus(
              d.hasLiveWorkers() ? OptionalLong.of(d.getLiveWorkers()) : OptionalLong.empty(),
              d.hasMaxConcurrency() ? OptionalLong.of(d.getMaxConcurrency()) : OptionalLong.empty()));
    } catch (IllegalArgumentException e) {
      throw WireValidationException.malformed("deployment", String.valueOf(e.getMessage()));
    }
  }

  private static dev.kvrelay.engine.wan.ModelServingLoad modelEntry(ModelServingLoad m)
      throws WireValidationException {
    if (!m.hasLoad()) {
      throw WireValidationException.malformed("load", "model load view is missing");
    }
    LoadView load = m.getLoad();
    DataStatus status = DataStatus.fromWire(load.getStatusValue());
    boolean complete = status == DataStatus.COMPLETE;
    if (!load.hasRequests()) {
      throw WireValidationException.malformed("load.requests", "model request counts are missing");
    }
    RequestLifecycleStats r = load.getRequests();
    presence("load.requests.requests_awaiting_first_token", r.hasRequestsAwaitingFirstToken(), complete);
    presence("load.requests.requests_generating", r.hasRequestsGenerating(), complete);
    if (!load.hasTokens()) {
      throw WireValidationException.malformed("load.tokens", "model token load is missing");
    }
    TokenLoadStats t = load.getTokens();
    presence("load.tokens.awaiting_first_token_input_tokens", t.hasAwaitingFirstTokenInputTokens(), complete);
    presence("load.tokens.inflight_input_tokens", t.hasInflightInputTokens(), complete);
    presence("load.tokens.input_tokens_total", t.hasInputTokensTotal(), true);
    presence("load.tokens.output_tokens_total", t.hasOutputTokensTotal(), true);
    presence("load.tokens.active_prefill_tokens", t.hasActivePrefillTokens(), false);
    presence("load.tokens.active_decode_blocks", t.hasActiveDecodeBlocks(), false);
    if (!m.hasDeployment()) {
      throw WireValidationException.malformed("deployment", "model deployment status is missing");
    }
    ModelDeploymentStatus d = m.getDeployment();
    List<dev.kvrelay.api.KvPoolId> servingPools = new ArrayList<>(d.getServingPoolsCount());
    for (int i = 0; i < d.getServingPoolsCount(); i++) {
      dev.kvrelay.api.KvPoolId pool = dev.kvrelay.api.KvPoolId.fromWire(fromProto(d.getServingPools(i)));
      if (servingPools.contains(pool)) {
        throw WireValidationException.malformed("deployment.serving_pools[" + i + "]", "duplicate serving pool " + pool);
      }
      servingPools.add(pool);
    }
    try {
      return new dev.kvrelay.engine.wan.ModelServingLoad(m.getNamespace(), m.getCanonicalModelId(),
          new ServingLoadView(Optional.of(new dev.kvrelay.engine.wan.RequestLifecycleStats(
              r.getRequestsStartedTotal(), r.getRequestsCompletedTotal(), r.getRequestsFailedTotal(),
              r.getRequestsCancelledTotal(), optional(r.hasRequestsAwaitingFirstToken(), r.getRequestsAwaitingFirstToken()),
              optional(r.hasRequestsGenerating(), r.getRequestsGenerating()))),
              fromProto(t), status, load.getSourceObservedMs()),
          new dev.kvrelay.engine.wan.ModelDeploymentStatus(
              d.getExpectedFrontends(), d.getObservedFrontends(), d.getReadyFrontends(), servingPools));
    } catch (IllegalArgumentException e) {
      // the engine's remaining consistency rule: status vs frontend counts (§4.2)
      throw WireValidationException.malformed("deployment", String.valueOf(e.getMessage()));
    }
  }

  private static dev.kvrelay.engine.wan.TokenLoadStats fromProto(TokenLoadStats t) {
    return new dev.kvrelay.engine.wan.TokenLoadStats(
        optional(t.hasActivePrefillTokens(), t.getActivePrefillTokens()),
        optional(t.hasActiveDecodeBlocks(), t.getActiveDecodeBlocks()),
        optional(t.hasAwaitingFirstTokenInputTokens(), t.getAwaitingFirstTokenInputTokens()),
        optional(t.hasInflightInputTokens(), t.getInflightInputTokens()),
        optional(t.hasInputTokensTotal(), t.getInputTokensTotal()),
        optional(t.hasOutputTokensTotal(), t.getOutputTokensTotal()));
  }

  private static OptionalLong optional(boolean present, long value) {
    return present ? OptionalLong.of(value) : OptionalLong.empty();
  }

  private static void presence(String field, boolean present, boolean required) throws WireValidationException {
    if (present != required) {
      throw WireValidationException.malformed(field, required ? "must be set" : "must not be set");
    }
  }
}
