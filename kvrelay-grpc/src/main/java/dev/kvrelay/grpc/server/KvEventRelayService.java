package dev.kvrelay.grpc.server;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.SubscriberId;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSource;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.KvPoolLoadUpdate;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.proto.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.SubscribeKvPoolLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.SubscribeServingLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeServingReadinessRequest;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import dev.kvrelay.grpc.wire.PoolFrameCodec;
import dev.kvrelay.grpc.wire.RelayStatus;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Thread-safe (stateless per call): the six {@code dynamo.kvrelay.v1.KvEventRelay} RPCs over a {@link RelayEngine}
 * (wan-grpc.md §2). Requests are checked in the order of §2.1 (contract marker, subscriber id, then for
 * SubscribeKvPool the expected producer), then the engine call decides admission, catalog and hub, its
 * {@link RelayException} mapped through {@link RelayStatus#toStatus}. Each stream is moved to its call by a
 * {@link StreamPump} that follows gRPC flow control.
 */
final class KvEventRelayService extends KvEventRelayGrpc.KvEventRelayImplBase {
  /** The engine's streams. */
  private final WireSource engine;
  private final RelayIdentity relay;
  private final Executor pumps;

  /**
   * A service over {@code engine}.
   *
   * @param pumpExecutor runs the stream drains; they never block, so a few threads serve every call
   */
  public KvEventRelayService(RelayEngine engine, Executor pumpExecutor) {
    this.engine = WireSources.of(Objects.requireNonNull(engine, "engine"));
    this.relay = engine.identity();
    this.pumps = Objects.requireNonNull(pumpExecutor, "pumpExecutor");
  }

  @Override
  public void getRelayInfo(RelayInfoRequest request, StreamObserver<RelayInfo> responseObserver) {
    if (!WireCodec.markerMatches(request.getContractMarker())) {
      responseObserver.onError(RelayStatus.toStatus(contractMismatch(request.getContractMarker())));
      return;
    }
    responseObserver.onNext(WireCodec.relayInfo(relay));
    responseObserver.onCompleted();
  }

  @Override
  public void watchKvPoolCatalog(
      WatchKvPoolCatalogRequest request, StreamObserver<KvPoolCatalogUpdate> responseObserver) {
    ServerCallStreamObserver<KvPoolCatalogUpdate> out = serverSide(responseObserver);
    try {
      checkMarker(request.getContractMarker());
      SubscriberId.check(request.getSubscriberId());
      pump(out, engine.watchCatalog(request.getSubscriberId()), WireCodec::toProto);
    } catch (RelayException e) {
      out.onError(RelayStatus.toStatus(e));
    }
  }

  @Override
  public void subscribeKvPool(SubscribeKvPoolRequest request, StreamObserver<FilterUpdate> responseObserver) {
    ServerCallStreamObserver<FilterUpdate> out = serverSide(responseObserver);
    ProducerIdentity expected;
    try {
      checkMarker(request.getContractMarker());
      SubscriberId.check(request.getSubscriberId());
      expected = expectedProducer(request);
    } catch (RelayException e) {
      out.onError(RelayStatus.toStatus(e));
      return;
    }
    StreamPump<dev.kvrelay.engine.wire.PoolFrame, FilterUpdate> pump = new StreamPump<>(out, new PoolFrameCodec()::encode, pumps); // this stream's producer memo
    // The dependent stage is not needed: the callback hands the outcome to the pump, which reports it on the call.
    CompletionStage<?> unused = engine.subscribePool(expected.poolId(), expected, request.getSubscriberId())
        .whenComplete((stream, error) -> {
          if (error != null) {
            pump.fail(StreamPump.statusOf(error));
          } else {
            pump.attach(stream);
          }
        });
  }

  @Override
  public void subscribeServingReadiness(
      SubscribeServingReadinessRequest request, StreamObserver<ServingReadinessUpdate> responseObserver) {
    ServerCallStreamObserver<ServingReadinessUpdate> out = serverSide(responseObserver);
    try {
      checkMarker(request.getContractMarker());
      SubscriberId.check(request.getSubscriberId());
      pump(out, engine.watchReadiness(request.getSubscriberId()), t -> WireCodec.toProto(relay, t));
    } catch (RelayException e) {
      out.onError(RelayStatus.toStatus(e));
    }
  }

  @Override
  public void subscribeKvPoolLoad(
      SubscribeKvPoolLoadRequest request, StreamObserver<KvPoolLoadUpdate> responseObserver) {
    ServerCallStreamObserver<KvPoolLoadUpdate> out = serverSide(responseObserver);
    try {
      checkMarker(request.getContractMarker());
      SubscriberId.check(request.getSubscriberId());
      pump(out, engine.watchPoolLoad(request.getSubscriberId()), w -> WireCodec.toProto(relay, w));
    } catch (RelayException e) {
      out.onError(RelayStatus.toStatus(e));
    }
  }

  @Override
  public void subscribeServingLoad(
      SubscribeServingLoadRequest request, StreamObserver<ServingLoadUpdate> responseObserver) {
    ServerCallStreamObserver<ServingLoadUpdate> out = serverSide(responseObserver);
    try {
      checkMarker(request.getContractMarker());
      SubscriberId.check(request.getSubscriberId());
      pump(out, engine.watchServingLoad(request.getSubscriberId()), w -> WireCodec.toProto(relay, w));
    } catch (RelayException e) {
      out.onError(RelayStatus.toStatus(e));
    }
  }

  private <T, M> void pump(ServerCallStreamObserver<M> out, RelayStream<T> stream, Function<T, M> mapper) {
    new StreamPump<>(out, mapper, pumps).attach(stream);
  }

  /** §2.1 step 3: present, then ProducerKey validation (malformed ⇒ INVALID_REQUEST, unsupported ⇒ UNSUPPORTED_FEATURE). */
  static ProducerIdentity expectedProducer(SubscribeKvPoolRequest request) throws RelayException {
    if (!request.hasExpectedProducer()) {
      throw new RelayException(RelayErrorReason.INVALID_REQUEST, "expected_producer is required");
    }
    try {
      return WireCodec.producer(request.getExpectedProducer());
    } catch (WireValidationException e) {
      throw new RelayException(e.isUnsupported() ? RelayErrorReason.UNSUPPORTED_FEATURE : RelayErrorReason.INVALID_REQUEST,
          "expected_producer." + e.field() + ": " + e.detail());
    }
  }

  private static void checkMarker(int markerBits) throws RelayException {
    if (!WireCodec.markerMatches(markerBits)) {
      throw contractMismatch(markerBits);
    }
  }

  private static RelayException contractMismatch(int markerBits) {
    return new RelayException(RelayErrorReason.CONTRACT_MISMATCH, "contract_marker 0x"
        + Integer.toHexString(markerBits) + " is not 0x" + Integer.toHexString(WireCodec.CONTRACT_MARKER_BITS));
  }

  private static <M> ServerCallStreamObserver<M> serverSide(StreamObserver<M> observer) {
    return (ServerCallStreamObserver<M>) observer;
  }
}
