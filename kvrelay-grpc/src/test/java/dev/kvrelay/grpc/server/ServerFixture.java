package dev.kvrelay.grpc.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.wire.RelayStatus;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe (one test thread): an engine on the in-memory discovery and event plane, a {@link RelayGrpcServer}
 * on 127.0.0.1 port 0, and a plain grpc-java channel to it (8 MiB inbound), with one simulated worker helper.
 * Every wait has a deadline; nothing sleeps longer than a few milliseconds.
 */
final class ServerFixture implements AutoCloseable {
  static final long DEADLINE_MS = 10_000;
  static final int MAX_INBOUND = 8 * 1024 * 1024;
  static final DynamoEndpointId AGG = new DynamoEndpointId("ns", "backend", "generate");

  final InMemoryDiscovery discovery = new InMemoryDiscovery();
  final InMemoryEventPlane plane = InMemoryEventPlane.create();
  final RelayEngine engine;
  final RelayGrpcServer server;
  final ManagedChannel channel;
  final KvEventRelayGrpc.KvEventRelayBlockingStub blocking;
  final KvEventRelayGrpc.KvEventRelayStub async;

  ServerFixture(RelayEngineConfig.Builder config) throws Exception {
    this(config, UnaryOperator.identity());
  }

  /** A fixture whose engine builder is passed through {@code engineSetup} last (failure-injection seams). */
  ServerFixture(RelayEngineConfig.Builder config, UnaryOperator<RelayEngine.Builder> engineSetup) throws Exception {
    this.engine = engineSetup.apply(
        RelayEngine.builder().config(config.build()).discovery(discovery).eventPlane(plane).poolThreads(2)).build();
    this.server = RelayGrpcServer.builder().engine(engine).build();
    server.start();
    this.channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext()
        .maxInboundMessageSize(MAX_INBOUND).build();
    this.blocking = KvEventRelayGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS);
    this.async = KvEventRelayGrpc.newStub(channel);
  }

  /**
   * The conformance fixture's engine settings (block 64 cards, 10 ms load windows). The load fan-out ring holds 256
   * windows (2.56 s) instead of 16 (160 ms) so that a test reading a load stream on a loaded 2-core machine is not
   * cut off with SUBSCRIBER_LAGGED; lag itself is tested in the engine's broadcast tests.
   */
  static RelayEngineConfig.Builder config() {
    return config(4096);
  }

  /** {@link #config()} with {@code expectedBlocks} per pool (sets the CKF bucket count). */
  static RelayEngineConfig.Builder config(long expectedBlocks) {
    return RelayEngineConfig.builder().dcId("dc-conformance").watchAll(true).bind("127.0.0.1:0")
        .expectedUniqueBlocks(expectedBlocks).loadWindowMs(10).loadFanoutCapacity(256);
  }

  /** The conformance fixture's card: model "llama", alias "chat", no role (LEGACY), block 64, 100 KV blocks. */
  static String llamaCard() {
    return "\"display_name\":\"llama\",\"kv_cache_block_size\":64,\"aliases\":[\"chat\"],"
        + "\"runtime_config\":{\"data_parallel_start_rank\":0,\"data_parallel_size\":1,\"total_kv_blocks\":100}";
  }

  Worker worker(long workerId) {
    return new Worker(workerId, llamaCard());
  }

  CatalogSnapshot awaitCatalog(Predicate<CatalogSnapshot> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      CatalogSnapshot c = engine.catalog();
      if (condition.test(c)) {
        return c;
      }
      assertThat(System.nanoTime()).as("catalog condition in time; last %s", c).isLessThan(deadline);
      Thread.sleep(2);
    }
  }

  TopologySnapshot awaitReadiness(Predicate<TopologySnapshot> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      TopologySnapshot t = engine.readiness();
      if (condition.test(t)) {
        return t;
      }
      assertThat(System.nanoTime()).as("readiness condition in time; last %s", t).isLessThan(deadline);
      Thread.sleep(2);
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.close();
    engine.close();
    plane.close();
    discovery.close();
  }

  /** Not thread-safe (test thread): one simulated worker with one DP rank (live-only KV event source). */
  final class Worker {
    private static final AtomicLong PUBLISHERS = new AtomicLong();
    final long workerId;
    final String cardBody;
    private long publisherId;
    private InMemoryEventPlane.@Nullable Publisher events;
    private InMemoryEventPlane.@Nullable Publisher load;
    private long nextEventId = 1;
    private long nextBlock;

    Worker(long workerId, String cardBody) {
      this.workerId = workerId;
      this.cardBody = cardBody;
      this.nextBlock = workerId * 1_000_003L + 1;
    }

    /** Advertises the card, the endpoint instance and a fresh event source (new publisher id, empty cache). */
    Worker start() {
      publisherId = mix(PUBLISHERS.incrementAndGet());
      nextEventId = 1;
      events = plane.publisher(new EventScope.Endpoint(AGG), EventTopics.KV_EVENTS, publisherId);
      load = plane.publisher(new EventScope.Endpoint(AGG), EventTopics.KV_METRICS, publisherId + 1);
      discovery.put(card());
      discovery.put(instance());
      discovery.put(source());
      return this;
    }

    /** Withdraws everything this worker advertised. */
    void die() {
      discovery.remove(card().key());
      discovery.remove(new EndpointKey(AGG, workerId));
      discovery.remove(source().key());
    }

    /** Stores one new root block (one KV store event). */
    void storeBlock() {
      long block = nextBlock++;
      emit(new KvEventData.Stored(OptionalLong.empty(), OptionalLong.empty(),
          List.of(StoredBlock.of(block, block * 0x9E3779B97F4A7C15L))));
    }

    /** A kv_metrics report: {@code kvUsedBlocks} used on rank 0. */
    void reportLoad(long kvUsedBlocks) {
      load.publish(new ActiveLoad(workerId, 0, OptionalLong.empty(), OptionalLong.empty(), null,
          OptionalLong.of(kvUsedBlocks)));
    }

    private void emit(KvEventData data) {
      events.publish(new RouterEvent(workerId, StorageTier.DEVICE, ResidencyDomain.WORKER, nextEventId++, 0, data));
    }

    private ModelRecord card() {
      try {
        return ModelRecord.of(new ModelKey(AGG, workerId, null), (JsonObject) Json.parse("{" + cardBody + "}"));
      } catch (Exception e) {
        throw new AssertionError("bad card " + cardBody, e);
      }
    }

    private EndpointRecord instance() {
      return new EndpointRecord(new EndpointKey(AGG, workerId), new Transport.Tcp("127.0.0.1:9/" + workerId), "json",
          null);
    }

    private EventSourceRecord source() {
      return new EventSourceRecord(
          new EventSourceKey(new EventScope.Endpoint(AGG), EventTopics.KV_EVENTS, publisherId),
          new KvEventSource(AGG, workerId, 0, publisherId, null));
    }

    private long mix(long n) {
      long z = n * 0x9E3779B97F4A7C15L + workerId;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }
  }

  /**
   * Thread-safe (queues and futures): the client end of one call, collecting messages and the final status with
   * its trailers. With {@code manual}, the client requests nothing until {@link #request(int)} (a stalled reader).
   */
  static final class Collector<T> implements ClientResponseObserver<Object, T> {
    final BlockingQueue<T> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> end = new CompletableFuture<>();
    volatile @Nullable Metadata trailers;
    private volatile @Nullable ClientCallStreamObserver<Object> call;
    private final boolean manual;

    Collector() {
      this(false);
    }

    Collector(boolean manual) {
      this.manual = manual;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Object> requestStream) {
      call = requestStream;
      if (manual) {
        requestStream.disableAutoRequestWithInitial(0);
      }
    }

    @Override
    public void onNext(T value) {
      messages.add(value);
    }

    @Override
    public void onError(Throwable t) {
      trailers = Status.trailersFromThrowable(t);
      end.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      end.complete(Status.OK);
    }

    void request(int n) {
      call.request(n);
    }

    void cancel() {
      call.cancel("test cancels", null);
    }

    /** The next message within the deadline (fails with the call's end if none comes). */
    T next() throws InterruptedException {
      T v = messages.poll(DEADLINE_MS, TimeUnit.MILLISECONDS);
      if (v == null) {
        throw new AssertionError("no message in time; call ended with " + end.getNow(null));
      }
      return v;
    }

    /** The first message matching {@code condition} within the deadline, skipping others. */
    T await(Predicate<T> condition) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
      while (true) {
        long left = deadline - System.nanoTime();
        T v = messages.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
        if (v == null) {
          throw new AssertionError("no matching message in time; call ended with " + end.getNow(null));
        }
        if (condition.test(v)) {
          return v;
        }
      }
    }

    Status awaitEnd() throws Exception {
      return end.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }

    /** The kv-relay-error-reason trailer of the ended call. */
    @Nullable String reason() throws Exception {
      awaitEnd();
      Metadata t = trailers;
      return t == null ? null : t.get(RelayStatus.REASON_KEY);
    }
  }
}
