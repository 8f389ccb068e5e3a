package dev.kvrelay.grpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The transport of wan-grpc.md §6 over real loopback: health, reflection v1, bind, and shutdown (C4). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RelayGrpcServerTest {

  @Test
  void health_emptyAndRelayServiceAreServingOnceBound() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(f.channel).withDeadlineAfter(5, TimeUnit.SECONDS);
      assertThat(health.check(HealthCheckRequest.newBuilder().setService("").build()).getStatus())
          .isEqualTo(ServingStatus.SERVING);
      assertThat(health.check(HealthCheckRequest.newBuilder().setService("dynamo.kvrelay.v1.KvEventRelay").build())
          .getStatus()).isEqualTo(ServingStatus.SERVING);
      assertThatThrownBy(() -> health.check(HealthCheckRequest.newBuilder().setService("no.such.Service").build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }
  }

  @Test
  void reflection_v1ListsKvEventRelayAndItsSixMethods() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      BlockingQueue<ServerReflectionResponse> responses = new LinkedBlockingQueue<>();
      StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(f.channel)
          .withDeadlineAfter(5, TimeUnit.SECONDS).serverReflectionInfo(new StreamObserver<>() {
            @Override
            public void onNext(ServerReflectionResponse value) {
              responses.add(value);
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
          });
      requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
      ServerReflectionResponse list = responses.poll(5, TimeUnit.SECONDS);
      assertThat(list).isNotNull();
      assertThat(list.getListServicesResponse().getServiceList()).extracting(ServiceResponse::getName)
          .contains("dynamo.kvrelay.v1.KvEventRelay", "grpc.health.v1.Health");
      requests.onNext(ServerReflectionRequest.newBuilder()
          .setFileContainingSymbol("dynamo.kvrelay.v1.KvEventRelay").build());
      ServerReflectionResponse file = responses.poll(5, TimeUnit.SECONDS);
      assertThat(file).isNotNull();
      requests.onCompleted();
      List<String> methods = new ArrayList<>();
      for (var bytes : file.getFileDescriptorResponse().getFileDescriptorProtoList()) {
        FileDescriptorProto proto = parse(bytes);
        if (!proto.getPackage().equals("dynamo.kvrelay.v1")) {
          continue;
        }
        for (ServiceDescriptorProto s : proto.getServiceList()) {
          if (s.getName().equals("KvEventRelay")) {
            s.getMethodList().stream().map(MethodDescriptorProto::getName).forEach(methods::add);
          }
        }
      }
      assertThat(methods).containsExactlyInAnyOrder("GetRelayInfo", "WatchKvPoolCatalog", "SubscribeKvPool",
          "SubscribeServingReadiness", "SubscribeKvPoolLoad", "SubscribeServingLoad");
    }
  }

  private static FileDescriptorProto parse(com.google.protobuf.ByteString bytes) throws InvalidProtocolBufferException {
    return FileDescriptorProto.parseFrom(bytes);
  }

  @Test
  void bind_portZeroFromTheEngineConfigIsBoundToAnEphemeralPort() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      assertThat(f.engine.config().bind().orElseThrow().port()).isZero();
      assertThat(f.server.port()).isBetween(1, 65_535);
    }
  }

  @Test
  void port_isStillAnsweredAfterTheTransportStoppedBecauseTheEngineEnded() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      int bound = f.server.port();
      f.engine.close(); // the transport follows the engine down on its supervisor thread
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ServerFixture.DEADLINE_MS);
      while (f.server.healthStatus(RelayGrpcServer.SERVICE_NAME) == ServingStatus.SERVING
          && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(f.server.healthStatus(RelayGrpcServer.SERVICE_NAME)).as("transport stopped")
          .isNotEqualTo(ServingStatus.SERVING);
      // grpc-java's Server.getListenSockets() throws "Already terminated" here; the launcher reports the address
      // of a relay that failed right after starting (StockRelayTest.mainExits1OnATerminalFailureOfTheRunningRelay).
      assertThat(f.server.port()).isEqualTo(bound);
    }
  }

  @Test
  void builder_servesAnEngineWithoutBindAddressOnLoopbackAtAnEphemeralPortOrAtTheAddressGiven() throws Exception {
    dev.kvrelay.spi.discovery.InMemoryDiscovery discovery = new dev.kvrelay.spi.discovery.InMemoryDiscovery();
    dev.kvrelay.spi.eventplane.InMemoryEventPlane plane = dev.kvrelay.spi.eventplane.InMemoryEventPlane.create();
    try (dev.kvrelay.engine.RelayEngine engine = dev.kvrelay.engine.RelayEngine.builder()
        .config(dev.kvrelay.engine.RelayEngineConfig.builder().dcId("dc").watchAll(true).build())
        .discovery(discovery).eventPlane(plane).poolThreads(1).build()) {
      assertThat(engine.config().bind()).as("an embedded engine without --bind").isEmpty();
      try (RelayGrpcServer s = RelayGrpcServer.builder().engine(engine).build()) {
        s.start();
        assertThat(s.port()).isBetween(1, 65_535);
        assertThat(s.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.SERVING);
        try (dev.kvrelay.grpc.client.RelayGrpcClient client =
            dev.kvrelay.grpc.client.RelayGrpcClient.builder().target("127.0.0.1:" + s.port()).build()) {
          assertThat(client.getRelayInfo()).as("reachable on the loopback address")
              .isEqualTo(engine.identity());
        }
      }
      try (RelayGrpcServer s = RelayGrpcServer.builder().engine(engine)
          .address(new InetSocketAddress("127.0.0.1", 0)).build()) {
        assertThat(s.healthStatus(RelayGrpcServer.SERVICE_NAME)).as("not serving before bound")
            .isEqualTo(ServingStatus.NOT_SERVING);
        s.start();
        assertThat(s.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.SERVING);
        assertThat(s.port()).isPositive();
      }
    } finally {
      plane.close();
      discovery.close();
    }
  }

  @Test
  void c04_shutdownFinishesWithin5sWithAnIdleConnectionAndUnreadStreamsThenHealthIsNotServing() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity producer = KvEventRelayConformanceTest.catalogProducer(f);
      try (Socket idle = new Socket("127.0.0.1", f.server.port())) {
        ServerFixture.Collector<KvPoolCatalogUpdate> catalog = new ServerFixture.Collector<>(true);
        f.async.watchKvPoolCatalog(WireCodec.watchCatalogRequest("unread/catalog"), catalog);
        ServerFixture.Collector<FilterUpdate> pool = new ServerFixture.Collector<>(true);
        f.async.subscribeKvPool(KvEventRelayConformanceTest.subscribe("unread/ckf", producer), pool);
        // both calls are admitted (one message each taken), then left unread
        catalog.request(1);
        pool.request(1);
        catalog.next();
        pool.next();
        long start = System.nanoTime();
        f.server.close();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMs).as("shutdown time").isLessThan(5_000);
        assertThat(f.server.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.NOT_SERVING);
        assertThat(catalog.awaitEnd().isOk()).as("catalog call ends with the transport").isFalse();
        assertThat(pool.awaitEnd().isOk()).as("pool call ends with the transport").isFalse();
        assertThat(idle.isConnected()).isTrue();
      }
    }
  }
}
