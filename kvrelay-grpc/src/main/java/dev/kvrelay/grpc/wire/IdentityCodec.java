package dev.kvrelay.grpc.wire;

import com.google.protobuf.ByteString;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wire.RelayEnvelope;
import dev.kvrelay.grpc.proto.CkfFormat;
import dev.kvrelay.grpc.proto.DigestIdentity;
import dev.kvrelay.grpc.proto.DynamoEndpointId;
import dev.kvrelay.grpc.proto.IndexerDomainId;
import dev.kvrelay.grpc.proto.KvPoolId;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.RelayIdentity;
import org.jspecify.annotations.Nullable;

/**
 * Immutable (stateless): the codec of the messages every RPC family shares — relay and producer identities, pool
 * ids, digests, CKF formats, endpoint ids and the envelope of a received message (wan-grpc.md §1).
 */
final class IdentityCodec {
  /** {@code RELAY_CONTRACT_MARKER} as the {@code fixed32} bits protobuf-java uses. */
  static final int CONTRACT_MARKER_BITS = (int) RelayEnvelope.CONTRACT_MARKER;
  /** {@code RELAY_PROTOCOL_VERSION}. */
  static final int PROTOCOL_VERSION = RelayEnvelope.PROTOCOL_VERSION;

  private IdentityCodec() {}

  /** {@code RelayIdentity} (two fixed64, every value valid). */
  static RelayIdentity toProto(dev.kvrelay.api.RelayIdentity relay) {
    return RelayIdentity.newBuilder()
        .setDrtInstanceId(relay.drtInstanceId())
        .setRelayIncarnation(relay.relayIncarnation())
        .build();
  }

  /** The relay identity of a received message (every value is valid). */
  static dev.kvrelay.api.RelayIdentity fromProto(RelayIdentity relay) {
    return new dev.kvrelay.api.RelayIdentity(relay.getDrtInstanceId(), relay.getRelayIncarnation());
  }

  /** A producer key as sent in catalogs, frames, loads and {@code expected_producer}. */
  static ProducerIdentity toProto(dev.kvrelay.api.ProducerIdentity producer) {
    return producerToProto(producer.toWire());
  }

  /** The wire shape of a producer key as given (absent sub-messages stay absent). */
  static ProducerIdentity producerToProto(dev.kvrelay.api.ProducerIdentity.Wire wire) {
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
  static dev.kvrelay.api.ProducerIdentity.Wire fromProto(ProducerIdentity producer) {
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
  static dev.kvrelay.api.ProducerIdentity producer(@Nullable ProducerIdentity producer)
      throws WireValidationException {
    return dev.kvrelay.api.ProducerIdentity.fromWire(producer == null ? null : fromProto(producer));
  }

  /** {@code KvPoolId}, stamped with identity_version 1. */
  static KvPoolId toProto(dev.kvrelay.api.KvPoolId poolId) {
    return poolIdToProto(poolId.toWire());
  }

  static KvPoolId poolIdToProto(dev.kvrelay.api.KvPoolId.Wire wire) {
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
  static dev.kvrelay.api.KvPoolId.Wire fromProto(KvPoolId poolId) {
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

  /** The envelope of a received top-level message (marker bits as an unsigned value; relay null when absent). */
  static WireEnvelope envelope(int protocolVersion, int markerBits, @Nullable RelayIdentity relay) {
    return new WireEnvelope(protocolVersion, Integer.toUnsignedLong(markerBits), relay == null ? null : fromProto(relay));
  }


  static DynamoEndpointId endpointToProto(
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
}
