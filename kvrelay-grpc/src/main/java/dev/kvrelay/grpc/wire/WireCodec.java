package dev.kvrelay.grpc.wire;

import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayEnvelope;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.KvPoolDescriptor;
import dev.kvrelay.grpc.proto.KvPoolId;
import dev.kvrelay.grpc.proto.KvPoolLoadUpdate;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.RelayIdentity;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.proto.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.SubscribeKvPoolLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.SubscribeServingLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeServingReadinessRequest;
import dev.kvrelay.grpc.proto.TopologyEntry;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (stateless; holds no state of its own): the one mapping between the engine's values and
 * the {@code dynamo.kvrelay.v1} protobuf messages (wan-grpc.md §1), used by the server and the client alike.
 *
 * <p>This class is the entry point; each RPC family has its own codec behind it: {@link IdentityCodec} (identities,
 * pool ids, formats, envelopes), {@link RequestCodec} (requests and {@code RelayInfo}), {@link CatalogCodec},
 * {@link PoolFrameCodec}, {@link ReadinessCodec}, {@link PoolLoadCodec} and {@link ServingLoadCodec}. The frame
 * entry points here convert one frame without a memo; a stream that sends or receives frames owns a
 * {@link PoolFrameCodec}, whose producer memos are that stream's own.
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
  public static final int CONTRACT_MARKER_BITS = IdentityCodec.CONTRACT_MARKER_BITS;
  /** {@code RELAY_PROTOCOL_VERSION}. */
  public static final int PROTOCOL_VERSION = IdentityCodec.PROTOCOL_VERSION;

  private WireCodec() {}

  /** True if a received {@code fixed32 contract_marker} is {@code 0x4B565231}. */
  public static boolean markerMatches(int contractMarkerBits) {
    return Integer.toUnsignedLong(contractMarkerBits) == RelayEnvelope.CONTRACT_MARKER;
  }

  // ============================================================ identity (IdentityCodec)

  /** {@code RelayIdentity} (two fixed64, every value valid). */
  public static RelayIdentity toProto(dev.kvrelay.api.RelayIdentity relay) {
    return IdentityCodec.toProto(relay);
  }

  /** The relay identity of a received message (every value is valid). */
  public static dev.kvrelay.api.RelayIdentity fromProto(RelayIdentity relay) {
    return IdentityCodec.fromProto(relay);
  }

  /** A producer key as sent in catalogs, frames, loads and {@code expected_producer}. */
  public static ProducerIdentity toProto(dev.kvrelay.api.ProducerIdentity producer) {
    return IdentityCodec.toProto(producer);
  }

  /** The wire shape of a producer key as given (absent sub-messages stay absent). */
  public static ProducerIdentity producerToProto(dev.kvrelay.api.ProducerIdentity.Wire wire) {
    return IdentityCodec.producerToProto(wire);
  }

  /** A received producer key, unvalidated: feed it to {@code ProducerIdentity.fromWire}. */
  public static dev.kvrelay.api.ProducerIdentity.Wire fromProto(ProducerIdentity producer) {
    return IdentityCodec.fromProto(producer);
  }

  /**
   * A received producer key, validated with {@code ProducerIdentity.fromWire} (§1.8 order).
   *
   * @param producer {@code null} if the field is absent (malformed)
   */
  public static dev.kvrelay.api.ProducerIdentity producer(@Nullable ProducerIdentity producer)
      throws WireValidationException {
    return IdentityCodec.producer(producer);
  }

  /** {@code KvPoolId}, stamped with identity_version 1. */
  public static KvPoolId toProto(dev.kvrelay.api.KvPoolId poolId) {
    return IdentityCodec.toProto(poolId);
  }

  /** A received pool id, unvalidated: feed it to {@code KvPoolId.fromWire}. */
  public static dev.kvrelay.api.KvPoolId.Wire fromProto(KvPoolId poolId) {
    return IdentityCodec.fromProto(poolId);
  }

  // ============================================================ requests and RelayInfo (RequestCodec)

  /** {@code RelayInfoRequest{contract_marker}}. */
  public static RelayInfoRequest relayInfoRequest() {
    return RequestCodec.relayInfoRequest();
  }

  /** {@code WatchKvPoolCatalogRequest}. */
  public static WatchKvPoolCatalogRequest watchCatalogRequest(String subscriberId) {
    return RequestCodec.watchCatalogRequest(subscriberId);
  }

  /** {@code SubscribeKvPoolRequest} with the catalog's producer key, unmodified. */
  public static SubscribeKvPoolRequest subscribePoolRequest(
      String subscriberId, dev.kvrelay.api.ProducerIdentity expected) {
    return RequestCodec.subscribePoolRequest(subscriberId, expected);
  }

  /** {@code SubscribeServingReadinessRequest}. */
  public static SubscribeServingReadinessRequest readinessRequest(String subscriberId) {
    return RequestCodec.readinessRequest(subscriberId);
  }

  /** {@code SubscribeKvPoolLoadRequest}. */
  public static SubscribeKvPoolLoadRequest poolLoadRequest(String subscriberId) {
    return RequestCodec.poolLoadRequest(subscriberId);
  }

  /** {@code SubscribeServingLoadRequest}. */
  public static SubscribeServingLoadRequest servingLoadRequest(String subscriberId) {
    return RequestCodec.servingLoadRequest(subscriberId);
  }

  /** The {@code expected_producer} of a request, unvalidated; {@code null} when absent. */
  public static dev.kvrelay.api.ProducerIdentity.@Nullable Wire expectedProducer(SubscribeKvPoolRequest request) {
    return RequestCodec.expectedProducer(request);
  }

  /** {@code RelayInfo{protocol_version = 1, relay, marker}}. */
  public static RelayInfo relayInfo(dev.kvrelay.api.RelayIdentity relay) {
    return RequestCodec.relayInfo(relay);
  }

  /** The envelope of a received {@code RelayInfo} (its whole content). */
  public static WireEnvelope fromProto(RelayInfo info) {
    return RequestCodec.decodeRelayInfo(info);
  }

  // ============================================================ catalog (CatalogCodec)

  /** One descriptor (the producer's validated value). */
  public static KvPoolDescriptor toProto(dev.kvrelay.engine.wan.KvPoolDescriptor descriptor) {
    return CatalogCodec.encodeDescriptor(descriptor);
  }

  /**
   * One descriptor from its wire shape, as given: absent parts stay absent, raw enum numbers are kept.
   *
   * @throws NullPointerException if a list element is {@code null} (protobuf cannot carry it)
   */
  public static KvPoolDescriptor descriptorToProto(DescriptorWire wire) {
    return CatalogCodec.descriptorToProto(wire);
  }

  /** A received descriptor, unvalidated: feed it to {@code CatalogValidator}. */
  public static DescriptorWire fromProto(KvPoolDescriptor descriptor) {
    return CatalogCodec.decodeDescriptor(descriptor);
  }

  /** {@code KvPoolCatalogUpdate} for a published catalog (the server path). */
  public static KvPoolCatalogUpdate toProto(CatalogSnapshot snapshot) {
    return CatalogCodec.encodeSnapshot(snapshot);
  }

  /** {@code KvPoolCatalogUpdate} carrying exactly the envelope and wire descriptors of {@code update}. */
  public static KvPoolCatalogUpdate toProto(CatalogUpdate update) {
    return CatalogCodec.encodeUpdate(update);
  }

  /**
   * A received catalog update for {@code CatalogView.apply}, which checks the envelope and validates each
   * descriptor. The snapshot is judged only once the envelope passes, so a bad marker always wins.
   *
   * @throws WireValidationException (malformed, field {@code snapshot}) if the envelope passes but the
   *     always-set snapshot is absent
   */
  public static CatalogUpdate fromProto(KvPoolCatalogUpdate update) throws WireValidationException {
    return CatalogCodec.decodeUpdate(update);
  }

  // ============================================================ pool frames (PoolFrameCodec)

  /** {@link PoolFrameCodec#encode} of one frame, without a memo (a stream owns a {@link PoolFrameCodec}). */
  public static FilterUpdate toProto(PoolFrame frame) {
    return PoolFrameCodec.encodeOnce(frame);
  }

  /**
   * {@link PoolFrameCodec#decode} of one frame, without a memo (a stream owns a {@link PoolFrameCodec}).
   *
   * @throws WireValidationException the producer's first broken rule (§1.8)
   */
  public static PoolFrame fromProto(FilterUpdate update) throws WireValidationException {
    return PoolFrameCodec.decodeOnce(update);
  }

  // ============================================================ readiness (ReadinessCodec)

  /** {@code ServingReadinessUpdate} for a published topology of {@code relay}. */
  public static ServingReadinessUpdate toProto(dev.kvrelay.api.RelayIdentity relay, TopologySnapshot snapshot) {
    return ReadinessCodec.encodeUpdate(relay, snapshot);
  }

  /** One {@code TopologyEntry}. */
  public static TopologyEntry toProto(dev.kvrelay.engine.wan.TopologyEntry entry) {
    return ReadinessCodec.encodeEntry(entry);
  }

  /** A received readiness update, unvalidated (envelope and raw entries). */
  public static ReadinessWire fromProto(ServingReadinessUpdate update) {
    return ReadinessCodec.decodeUpdate(update);
  }

  /** A received {@code TopologyEntry}, unvalidated: feed it to {@code TopologyEntryValidator}. */
  public static TopologyEntryValidator.EntryWire fromProto(TopologyEntry entry) {
    return ReadinessCodec.decodeEntry(entry);
  }

  // ============================================================ pool load (PoolLoadCodec)

  /** {@code KvPoolLoadUpdate} for a published window of {@code relay}. */
  public static KvPoolLoadUpdate toProto(
      dev.kvrelay.api.RelayIdentity relay, dev.kvrelay.engine.wire.KvPoolLoadUpdate window) {
    return PoolLoadCodec.encodeWindow(relay, window);
  }

  /**
   * A received pool-load window. Each entry's producer is validated with {@code ProducerIdentity.fromWire};
   * an entry that fails is listed in {@link PoolLoadWindow#excluded()} instead of the update (it could never
   * join a catalog pool by ProducerKey). The envelope is not judged here: check it first.
   */
  public static PoolLoadWindow fromProto(KvPoolLoadUpdate update) {
    return PoolLoadCodec.decodeWindow(update);
  }

  // ============================================================ serving load (ServingLoadCodec)

  /** {@code ServingLoadUpdate} for a published window of {@code relay}. */
  public static ServingLoadUpdate toProto(
      dev.kvrelay.api.RelayIdentity relay, dev.kvrelay.engine.wire.ServingLoadUpdate window) {
    return ServingLoadCodec.encodeWindow(relay, window);
  }

  /**
   * A received serving-load window (wan-grpc.md §1.7), validated: see {@link ServingLoadCodec} for the window
   * rules (any broken one makes the whole window unusable) and the entry rules (a failing entry is left out and
   * listed).
   *
   * @throws WireValidationException the first broken window rule
   */
  public static ServingLoadWindow fromProto(ServingLoadUpdate update) throws WireValidationException {
    return ServingLoadCodec.decodeWindow(update);
  }
}
