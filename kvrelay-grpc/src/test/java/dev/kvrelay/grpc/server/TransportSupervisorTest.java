package dev.kvrelay.grpc.server;

import static dev.kvrelay.grpc.server.KvEventRelayConformanceTest.catalogProducer;
import static dev.kvrelay.grpc.server.KvEventRelayConformanceTest.subscribe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.EngineFaults;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The transport supervisor of wan-grpc.md §6.3 (C45) over real loopback: an engine that ends with an error (the
 * terminal host failure a failing load publisher causes) stops the transport with {@code lastError} set, NOT_SERVING
 * and the relay closed; a root cancel ({@code engine.close()}) stops it with no error; a listener that exits behind
 * the server's back is recorded as the error and cancels the relay.
 *
 * <p>The load-task failure is injected two ways: {@link EngineFaults#failLoadPublisherAt} makes the engine's real
 * load publisher throw at a given window (the load ticker stops and the engine terminates with the publisher's
 * error), and {@link EngineFaults#failHost} drives the same terminal-failure path directly with a known cause.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TransportSupervisorTest {

  /** Watches the relay service's health with the real grpc-java health client. */
  private static BlockingQueue<Object> watchHealth(ServerFixture f) {
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    HealthGrpc.newStub(f.channel).watch(
        HealthCheckRequest.newBuilder().setService(RelayGrpcServer.SERVICE_NAME).build(), new StreamObserver<>() {
          @Override
          public void onNext(HealthCheckResponse value) {
            events.add(value.getStatus());
          }

          @Override
          public void onError(Throwable t) {
            events.add(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            events.add(Status.OK);
          }
        });
    return events;
  }

  private static Object nextEvent(BlockingQueue<Object> events) throws InterruptedException {
    Object e = events.poll(ServerFixture.DEADLINE_MS, TimeUnit.MILLISECONDS);
    assertThat(e).as("a health event in time").isNotNull();
    return e;
  }

  /** Streams that are open (one message taken each) when the relay ends. */
  private record OpenStreams(ServerFixture.Collector<KvPoolCatalogUpdate> catalog,
      ServerFixture.Collector<FilterUpdate> pool) {
    static OpenStreams open(ServerFixture f) throws Exception {
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<KvPoolCatalogUpdate> catalog = new ServerFixture.Collector<>();
      f.async.watchKvPoolCatalog(WireCodec.watchCatalogRequest("supervised/catalog"), catalog);
      ServerFixture.Collector<FilterUpdate> pool = new ServerFixture.Collector<>();
      f.async.subscribeKvPool(subscribe("supervised/ckf", producer), pool);
      catalog.next();
      pool.next();
      return new OpenStreams(catalog, pool);
    }

    /** Both calls end (awaitEnd fails on its deadline otherwise); the pool call never ends OK. */
    void assertEnded(boolean catalogAborted) throws Exception {
      Status catalogEnd = catalog.awaitEnd();
      if (catalogAborted) {
        assertThat(catalogEnd.isOk()).as("catalog stream is aborted by the transport").isFalse();
      }
      assertThat(pool.awaitEnd().isOk()).as("pool stream ends with an error").isFalse();
    }
  }

  private static void assertNewCallsFail(ServerFixture f) {
    assertThatThrownBy(() -> HealthGrpc.newBlockingStub(f.channel).withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(RelayGrpcServer.SERVICE_NAME).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThatThrownBy(() -> f.blocking.getRelayInfo(WireCodec.relayInfoRequest()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  private static void assertRelayCancelled(ServerFixture f) {
    assertThat(f.engine.terminated()).isDone();
    assertThatThrownBy(() -> WireSources.of(f.engine).watchCatalog("after/catalog")).isInstanceOfSatisfying(RelayException.class,
        e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE));
    assertThat(f.engine.catalog().pools()).as("a cancelled relay withdraws its catalog").isEmpty();
  }

  @Test
  void c45_engineFailureRecordsLastErrorMarksNotServingEndsStreamsAndCancelsTheRelay() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      BlockingQueue<Object> health = watchHealth(f);
      assertThat(nextEvent(health)).isEqualTo(ServingStatus.SERVING);
      OpenStreams streams = OpenStreams.open(f);
      CompletableFuture<Void> terminated = f.server.terminated();
      assertThat(terminated).isNotDone();
      assertThat(f.server.lastError()).isEmpty();

      IllegalStateException cause = new IllegalStateException("load publisher failed at window 3");
      EngineFaults.failHost(f.engine, cause);

      assertThatThrownBy(() -> terminated.get(ServerFixture.DEADLINE_MS, TimeUnit.MILLISECONDS))
          .isInstanceOf(ExecutionException.class).hasCause(cause);
      assertThat(f.server.lastError()).containsSame(cause);
      assertThat(nextEvent(health)).as("the health watch sees NOT_SERVING").isEqualTo(ServingStatus.NOT_SERVING);
      assertThat(f.server.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.NOT_SERVING);
      streams.assertEnded(true);
      assertNewCallsFail(f);
      assertRelayCancelled(f);
      assertThat(f.engine.terminated()).isCompletedExceptionally();
      assertThat(f.server.awaitTermination(Duration.ZERO)).isTrue();
    }
  }

  @Test
  void c45_aRealLoadPublisherFailureEndsTheTransportWithItsErrorNotServingAndTheRelayCancelled() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config(),
        b -> EngineFaults.failLoadPublisherAt(b, 50))) {
      // 10 ms load windows: window 50 is due about 0.5 s after the engine starts, after the server has started.
      assertThat(f.server.awaitTermination(Duration.ofMillis(ServerFixture.DEADLINE_MS)))
          .as("the transport stops on its own once the load publisher fails").isTrue();
      assertThat(f.server.lastError()).get().extracting(Throwable::getMessage).asString()
          .contains("load publisher failed").contains("window 50");
      assertThat(f.server.terminated()).isCompletedExceptionally();
      assertThat(f.server.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.NOT_SERVING);
      assertNewCallsFail(f);
      assertThat(f.engine.terminated()).isCompletedExceptionally();
      assertThatThrownBy(() -> WireSources.of(f.engine).watchCatalog("after/catalog")).isInstanceOfSatisfying(RelayException.class,
          e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE));
    }
  }

  @Test
  void c45_rootCancelMarksNotServingAndStopsWithNoError() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      BlockingQueue<Object> health = watchHealth(f);
      assertThat(nextEvent(health)).isEqualTo(ServingStatus.SERVING);
      OpenStreams streams = OpenStreams.open(f);
      assertThat(f.server.awaitTermination(Duration.ofMillis(20))).as("still running").isFalse();

      f.engine.close(); // the root cancel

      assertThat(f.server.awaitTermination(Duration.ofMillis(ServerFixture.DEADLINE_MS))).isTrue();
      assertThat(f.server.terminated()).isCompletedWithValue(null);
      assertThat(f.server.lastError()).isEmpty();
      assertThat(nextEvent(health)).as("the health watch sees NOT_SERVING").isEqualTo(ServingStatus.NOT_SERVING);
      assertThat(f.server.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.NOT_SERVING);
      // the engine may end the catalog cleanly before the transport goes down: a clean EOF is allowed (§6.3)
      streams.assertEnded(false);
      assertNewCallsFail(f);
      assertThat(f.engine.terminated()).isCompletedWithValue(null);
    }
  }

  @Test
  void c45_listenerExitingBehindTheServersBackIsRecordedAndCancelsTheRelay() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      OpenStreams streams = OpenStreams.open(f);

      f.server.listenerForTest().shutdownNow();

      assertThat(f.server.awaitTermination(Duration.ofMillis(ServerFixture.DEADLINE_MS))).isTrue();
      assertThat(f.server.lastError()).get().isInstanceOf(IllegalStateException.class)
          .extracting(Throwable::getMessage).asString().contains("listener terminated unexpectedly");
      assertThat(f.server.terminated()).isCompletedExceptionally();
      assertThat(f.server.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.NOT_SERVING);
      streams.assertEnded(true);
      assertNewCallsFail(f);
      assertRelayCancelled(f);
      assertThat(f.engine.terminated()).as("cancelled, not failed").isCompletedWithValue(null);
    }
  }

  @Test
  void c45_closeIsACleanStopThatLeavesTheEngineRunningAndLaterEngineErrorsAreIgnored() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      catalogProducer(f);
      f.server.close();
      assertThat(f.server.terminated()).isCompletedWithValue(null);
      assertThat(f.engine.terminated()).as("close() does not cancel the relay").isNotDone();
      assertThat(f.engine.catalog().pools()).hasSize(1);
      EngineFaults.failHost(f.engine, new IllegalStateException("late"));
      assertThat(f.server.lastError()).as("an error after the stop is not recorded").isEmpty();
      assertThat(f.server.terminated()).isCompletedWithValue(null);
    }
  }

  @Test
  void closeRacingTheSupervisorReturnsOnlyOnceTheTransportHasStopped() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      OpenStreams streams = OpenStreams.open(f);
      EngineFaults.failHost(f.engine, new IllegalStateException("racing"));
      f.server.close(); // whoever wins, close() returns after the transport is down
      assertThat(f.server.terminated()).isDone();
      assertThat(f.server.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.NOT_SERVING);
      streams.assertEnded(true);
      assertNewCallsFail(f);
    }
  }

  @Test
  void startRefusesAnEngineThatHasAlreadyTerminated() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.engine.close();
      assertThat(f.server.awaitTermination(Duration.ofMillis(ServerFixture.DEADLINE_MS))).isTrue();
      try (RelayGrpcServer second = RelayGrpcServer.builder().engine(f.engine)
          .address(new java.net.InetSocketAddress("127.0.0.1", 0)).build()) {
        assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("already terminated");
      }
    }
  }
}
