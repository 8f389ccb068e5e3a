package dev.kvrelay.grpc.client;

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
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * Thread-safe (volatile scripts, concurrent request log): a fake relay service whose every RPC runs the script
 * the test set (default: UNIMPLEMENTED), recording each request. Public so tests of other packages (the engine
 * end-to-end tests) can script or proxy a relay too.
 */
public final class ScriptedRelay extends KvEventRelayGrpc.KvEventRelayImplBase {
  public volatile BiConsumer<RelayInfoRequest, StreamObserver<RelayInfo>> info = ScriptedRelay::unimplemented;
  public volatile BiConsumer<WatchKvPoolCatalogRequest, ServerCallStreamObserver<KvPoolCatalogUpdate>> catalog =
      ScriptedRelay::unimplemented;
  public volatile BiConsumer<SubscribeKvPoolRequest, ServerCallStreamObserver<FilterUpdate>> pool =
      ScriptedRelay::unimplemented;
  public volatile BiConsumer<SubscribeServingReadinessRequest, ServerCallStreamObserver<ServingReadinessUpdate>>
      readiness = ScriptedRelay::unimplemented;
  public volatile BiConsumer<SubscribeKvPoolLoadRequest, ServerCallStreamObserver<KvPoolLoadUpdate>> poolLoad =
      ScriptedRelay::unimplemented;
  public volatile BiConsumer<SubscribeServingLoadRequest, ServerCallStreamObserver<ServingLoadUpdate>> servingLoad =
      ScriptedRelay::unimplemented;
  public final List<Object> requests = new CopyOnWriteArrayList<>();

  private static void unimplemented(Object request, StreamObserver<?> out) {
    out.onError(Status.UNIMPLEMENTED.asRuntimeException());
  }

  @Override
  public void getRelayInfo(RelayInfoRequest request, StreamObserver<RelayInfo> out) {
    requests.add(request);
    info.accept(request, out);
  }

  @Override
  public void watchKvPoolCatalog(WatchKvPoolCatalogRequest request, StreamObserver<KvPoolCatalogUpdate> out) {
    requests.add(request);
    catalog.accept(request, (ServerCallStreamObserver<KvPoolCatalogUpdate>) out);
  }

  @Override
  public void subscribeKvPool(SubscribeKvPoolRequest request, StreamObserver<FilterUpdate> out) {
    requests.add(request);
    pool.accept(request, (ServerCallStreamObserver<FilterUpdate>) out);
  }

  @Override
  public void subscribeServingReadiness(
      SubscribeServingReadinessRequest request, StreamObserver<ServingReadinessUpdate> out) {
    requests.add(request);
    readiness.accept(request, (ServerCallStreamObserver<ServingReadinessUpdate>) out);
  }

  @Override
  public void subscribeKvPoolLoad(SubscribeKvPoolLoadRequest request, StreamObserver<KvPoolLoadUpdate> out) {
    requests.add(request);
    poolLoad.accept(request, (ServerCallStreamObserver<KvPoolLoadUpdate>) out);
  }

  @Override
  public void subscribeServingLoad(SubscribeServingLoadRequest request, StreamObserver<ServingLoadUpdate> out) {
    requests.add(request);
    servingLoad.accept(request, (ServerCallStreamObserver<ServingLoadUpdate>) out);
  }

  /** A script that sends {@code messages} and completes. */
  public static <Q, R> BiConsumer<Q, ServerCallStreamObserver<R>> sendAndComplete(List<R> messages) {
    return (q, out) -> {
      for (R m : messages) {
        out.onNext(m);
      }
      out.onCompleted();
    };
  }

  /** A script that sends {@code messages}, then ends with {@code error}. */
  public static <Q, R> BiConsumer<Q, ServerCallStreamObserver<R>> sendAndFail(List<R> messages, Throwable error) {
    return (q, out) -> {
      for (R m : messages) {
        out.onNext(m);
      }
      out.onError(error);
    };
  }
}
