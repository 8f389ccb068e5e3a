package dev.kvrelay.launcher.inspect;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe (gRPC's threads; a concurrent queue): a KvEventRelay test server in front of a real relay that passes
 * GetRelayInfo, the catalog and the pool stream through and records the {@code :authority} of every call it
 * receives (reflection included); optionally it pads each RelayInfo and catalog update with an unknown field of
 * {@code padBytes} bytes (ignored by every reader), to make them larger than a given inbound limit.
 */
final class RecordingRelay implements AutoCloseable {
  /** An unknown field number of RelayInfo and KvPoolCatalogUpdate. */
  private static final int PAD_FIELD = 1000;

  private final ManagedChannel upstream;
  private final Server server;
  private final ConcurrentLinkedQueue<Map.Entry<String, String>> calls = new ConcurrentLinkedQueue<>();

  RecordingRelay(int upstreamPort, int padBytes) throws IOException {
    upstream = ManagedChannelBuilder.forAddress("127.0.0.1", upstreamPort).usePlaintext().build();
    KvEventRelayGrpc.KvEventRelayStub stub = KvEventRelayGrpc.newStub(upstream);
    UnknownFieldSet pad = UnknownFieldSet.newBuilder().addField(PAD_FIELD, UnknownFieldSet.Field.newBuilder()
        .addLengthDelimited(ByteString.copyFrom(new byte[padBytes])).build()).build();
    KvEventRelayGrpc.KvEventRelayImplBase service = new KvEventRelayGrpc.KvEventRelayImplBase() {
      @Override
      public void getRelayInfo(RelayInfoRequest request, StreamObserver<RelayInfo> out) {
        stub.getRelayInfo(request, new Forward<>(out) {
          @Override
          public void onNext(RelayInfo value) {
            out.onNext(padBytes == 0 ? value : value.toBuilder().setUnknownFields(pad).build());
          }
        });
      }

      @Override
      public void watchKvPoolCatalog(WatchKvPoolCatalogRequest request, StreamObserver<KvPoolCatalogUpdate> out) {
        stub.watchKvPoolCatalog(request, new Forward<>(out) {
          @Override
          public void onNext(KvPoolCatalogUpdate value) {
            out.onNext(padBytes == 0 ? value : value.toBuilder().setUnknownFields(pad).build());
          }
        });
      }

      @Override
      public void subscribeKvPool(SubscribeKvPoolRequest request, StreamObserver<FilterUpdate> out) {
        stub.subscribeKvPool(request, new Forward<>(out));
      }
    };
    ServerInterceptor recorder = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        calls.add(Map.entry(call.getMethodDescriptor().getBareMethodName(), String.valueOf(call.getAuthority())));
        return next.startCall(call, headers);
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service)
        .addService(ProtoReflectionServiceV1.newInstance()).intercept(recorder).build().start();
  }

  /** Not thread-safe (one gRPC call's callbacks): passes a response stream through unchanged. */
  private static class Forward<T> implements StreamObserver<T> {
    private final StreamObserver<T> out;

    Forward(StreamObserver<T> out) {
      this.out = out;
    }

    @Override
    public void onNext(T value) {
      out.onNext(value);
    }

    @Override
    public void onError(Throwable t) {
      out.onError(t);
    }

    @Override
    public void onCompleted() {
      out.onCompleted();
    }
  }

  /** Every call received so far as (bare method name, {@code :authority}), in arrival order. */
  List<Map.Entry<String, String>> calls() {
    return List.copyOf(calls);
  }

  int port() {
    return server.getPort();
  }

  String target() {
    return "127.0.0.1:" + port();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    upstream.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
