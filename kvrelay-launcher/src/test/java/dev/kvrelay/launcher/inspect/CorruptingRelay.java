package dev.kvrelay.launcher.inspect;

import com.google.protobuf.ByteString;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.FilterUpdateKind;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread-safe (gRPC's threads; one counter): a KvEventRelay test server in front of a real relay that passes
 * GetRelayInfo, the catalog and the pool stream through, except that it corrupts the pool stream's third delta:
 * either one flipped bit in its CBI1 body, or the delta dropped (so the next one skips a sequence).
 */
final class CorruptingRelay implements AutoCloseable {
  /** What is done to the third delta. */
  enum Fault {
    FLIP_BIT,
    SKIP_SEQUENCE
  }

  /** The delta (1-based) the fault hits. */
  static final int TARGET_DELTA = 3;

  private final ManagedChannel upstream;
  private final Server server;
  private final AtomicInteger deltas = new AtomicInteger();

  CorruptingRelay(int upstreamPort, Fault fault) throws IOException {
    upstream = ManagedChannelBuilder.forAddress("127.0.0.1", upstreamPort).usePlaintext().build();
    KvEventRelayGrpc.KvEventRelayStub stub = KvEventRelayGrpc.newStub(upstream);
    KvEventRelayGrpc.KvEventRelayImplBase service = new KvEventRelayGrpc.KvEventRelayImplBase() {
      @Override
      public void getRelayInfo(RelayInfoRequest request, StreamObserver<RelayInfo> out) {
        stub.getRelayInfo(request, out);
      }

      @Override
      public void watchKvPoolCatalog(WatchKvPoolCatalogRequest request, StreamObserver<KvPoolCatalogUpdate> out) {
        stub.watchKvPoolCatalog(request, out);
      }

      @Override
      public void subscribeKvPool(SubscribeKvPoolRequest request, StreamObserver<FilterUpdate> out) {
        stub.subscribeKvPool(request, new StreamObserver<>() {
          @Override
          public void onNext(FilterUpdate value) {
            if (value.getKind() == FilterUpdateKind.FILTER_UPDATE_KIND_DELTA
                && deltas.incrementAndGet() == TARGET_DELTA) {
              if (fault == Fault.SKIP_SEQUENCE) {
                return;
              }
              byte[] payload = value.getPayload().toByteArray();
              payload[payload.length - 1] ^= 0x10; // one bit of the last image, inside the checksummed body
              value = value.toBuilder().setPayload(ByteString.copyFrom(payload)).build();
            }
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
        });
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service)
        .addService(ProtoReflectionServiceV1.newInstance()).build().start();
  }

  /** Deltas seen so far. */
  int deltasSeen() {
    return deltas.get();
  }

  int port() {
    return server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    upstream.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
