package dev.kvrelay.grpc.wire;

import static dev.kvrelay.grpc.wire.IdentityCodec.CONTRACT_MARKER_BITS;
import static dev.kvrelay.grpc.wire.IdentityCodec.PROTOCOL_VERSION;
import static dev.kvrelay.grpc.wire.IdentityCodec.envelope;
import static dev.kvrelay.grpc.wire.IdentityCodec.fromProto;
import static dev.kvrelay.grpc.wire.IdentityCodec.toProto;

import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.SubscribeServingLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeServingReadinessRequest;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import org.jspecify.annotations.Nullable;

/**
 * Immutable (stateless): the codec of the request messages every RPC opens with and of {@code GetRelayInfo}'s
 * answer (wan-grpc.md §1, §2.1).
 */
final class RequestCodec {
  private RequestCodec() {}

  /** {@code RelayInfoRequest{contract_marker}}. */
  static RelayInfoRequest relayInfoRequest() {
    return RelayInfoRequest.newBuilder().setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code WatchKvPoolCatalogRequest}. */
  static WatchKvPoolCatalogRequest watchCatalogRequest(String subscriberId) {
    return WatchKvPoolCatalogRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code SubscribeKvPoolRequest} with the catalog's producer key, unmodified. */
  static SubscribeKvPoolRequest subscribePoolRequest(
      String subscriberId, dev.kvrelay.api.ProducerIdentity expected) {
    return SubscribeKvPoolRequest.newBuilder()
        .setSubscriberId(subscriberId)
        .setExpectedProducer(toProto(expected))
        .setContractMarker(CONTRACT_MARKER_BITS)
        .build();
  }

  /** {@code SubscribeServingReadinessRequest}. */
  static SubscribeServingReadinessRequest readinessRequest(String subscriberId) {
    return SubscribeServingReadinessRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code SubscribeKvPoolLoadRequest}. */
  static SubscribeKvPoolLoadRequest poolLoadRequest(String subscriberId) {
    return SubscribeKvPoolLoadRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** {@code SubscribeServingLoadRequest}. */
  static SubscribeServingLoadRequest servingLoadRequest(String subscriberId) {
    return SubscribeServingLoadRequest.newBuilder()
        .setSubscriberId(subscriberId).setContractMarker(CONTRACT_MARKER_BITS).build();
  }

  /** The {@code expected_producer} of a request, unvalidated; {@code null} when absent. */
  static dev.kvrelay.api.ProducerIdentity.@Nullable Wire expectedProducer(SubscribeKvPoolRequest request) {
    return request.hasExpectedProducer() ? fromProto(request.getExpectedProducer()) : null;
  }

  /** {@code RelayInfo{protocol_version = 1, relay, marker}}. */
  static RelayInfo relayInfo(dev.kvrelay.api.RelayIdentity relay) {
    return RelayInfo.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setContractMarker(CONTRACT_MARKER_BITS)
        .build();
  }

  /** The envelope of a received {@code RelayInfo} (its whole content). */
  static WireEnvelope decodeRelayInfo(RelayInfo info) {
    return envelope(info.getProtocolVersion(), info.getContractMarker(), info.hasRelay() ? info.getRelay() : null);
  }
}
