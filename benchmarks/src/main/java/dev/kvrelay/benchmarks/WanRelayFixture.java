package dev.kvrelay.benchmarks;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.ckf.hashing.SequenceHash;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.eventplane.nats.NatsEventPlane;
import dev.kvrelay.eventplane.nats.NatsSettings;
import dev.kvrelay.eventplane.zmq.ZmqEventPlane;
import dev.kvrelay.eventplane.zmq.ZmqSettings;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.spi.discovery.ChannelTransport;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventChannelKey;
import dev.kvrelay.spi.discovery.EventChannelRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: built and closed by one thread; {@link #publishStored}/{@link #publishRemoved} are confined to
 * one publishing thread (the engine, server and client it wires are thread-safe themselves). One relay as it runs in
 * a DC, with its WAN listener and a remote reader: a {@link RelayEngine} (default knobs except
 * {@code expected_unique_blocks} and, where a benchmark says so, {@code publication_queue_capacity}) on the in-memory
 * discovery and one {@link Plane event plane} (the in-memory one, or the real ZMQ or NATS plugin over loopback), one
 * simulated worker (one rank, not recoverable) advertised in discovery and publishing {@code kv-events} through the
 * event plane ({@link WorkerPublisher}: msgpack encoded and delivered on the plane's own thread, as the real
 * subscriber path), a {@link RelayGrpcServer} on
 * {@code 127.0.0.1:0}, and a {@link RelayGrpcClient} connected to it over loopback h2c.
 *
 * <p>Workload: Stored event {@code s} carries {@value #BLOCKS} blocks forming a fresh root chain: block {@code i}
 * has tokens hash {@code T(s, i)} and external id {@code X(s, i)} (both pure functions of {@code (s, i)}), so its
 * canonical sequence hash is {@code T(s, 0)} for the root and {@code child(canonical(s, i-1), T(s, i))} after it;
 * Removed event {@code s} removes exactly the external ids of Stored event {@code s}. Nothing is remembered per event.
 */
final class WanRelayFixture implements AutoCloseable {
  static final int BLOCKS = 16;
  static final long WORKER = 7;
  static final long PUBLISHER_ID = 0x5EED_0001L;
  static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("bench", "backend", "generate");
  private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

  private static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** Immutable: the event plane a fixture runs on. */
  enum Plane {
    /** {@code InMemoryEventPlane}: a queue and a delivery thread in this JVM. */
    MEMORY,
    /** The ZMQ plugin in direct mode: the worker binds a jeromq PUB on loopback, advertised as its EventChannel. */
    ZMQ,
    /** The NATS plugin: a {@code nats-server} child process on loopback, the worker publishes with jnats. */
    NATS;

    static Plane parse(String s) {
      return valueOf(s.toUpperCase(Locale.ROOT));
    }
  }

  final InMemoryDiscovery discovery = new InMemoryDiscovery();
  final Plane kind;
  final EventPlane plane;
  final RelayEngine engine;
  final RelayGrpcServer server;
  final RelayGrpcClient client;
  final KvPoolDescriptor pool;
  /** The NATS plane's server, else null. */
  final @Nullable NatsServerProcess natsServer;
  private final WorkerPublisher publisher;
  private long nextEventId = 1;

  /**
   * Starts the relay, its server and the client, and waits (at most 30 s) for the pool in the catalog.
   *
   * @param expectedUniqueBlocks the engine's {@code expected_unique_blocks} (2^20 gives B = 2^19)
   * @param queueBound the client's inbound queue bound per stream
   * @param publicationQueueCapacity the engine's {@code publication_queue_capacity} (frames queued per pool
   *     subscriber before it is cut off as lagged; default 16)
   */
  WanRelayFixture(long expectedUniqueBlocks, int queueBound, long publicationQueueCapacity) throws Exception {
    this(Plane.MEMORY, expectedUniqueBlocks, queueBound, publicationQueueCapacity);
  }

  /**
   * As {@link #WanRelayFixture(long, int, long)} on {@code kind}; on ZMQ and NATS it also waits (at most 30 s) until
   * the plane delivers the worker's first message (a {@code Cleared}, sequence 0, resent every 200 ms until heard:
   * a SUB joins late), so that no measured event is lost to the subscription's start.
   */
  WanRelayFixture(Plane kind, long expectedUniqueBlocks, int queueBound, long publicationQueueCapacity)
      throws Exception {
    this.kind = kind;
    EventScope scope = new EventScope.Endpoint(ENDPOINT);
    switch (kind) {
      case MEMORY -> {
        InMemoryEventPlane p = InMemoryEventPlane.create();
        plane = p;
        natsServer = null;
        publisher = new WorkerPublisher.Memory(p.publisher(scope, EventTopics.KV_EVENTS, PUBLISHER_ID));
      }
      case ZMQ -> {
        plane = ZmqEventPlane.open(ZmqSettings.direct(ZmqSettings.DEFAULT_IO_THREADS));
        natsServer = null;
        publisher = new WorkerPublisher.Zmq(PUBLISHER_ID);
      }
      case NATS -> {
        natsServer = NatsServerProcess.start();
        plane = NatsEventPlane.open(NatsSettings.of(List.of(natsServer.url()), NatsSettings.DEFAULT_AUTH));
        publisher = new WorkerPublisher.Nats(natsServer.url(), scope, PUBLISHER_ID);
      }
      default -> throw new IllegalArgumentException("plane " + kind);
    }
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("bench-dc").watchAll(true)
        .expectedUniqueBlocks(expectedUniqueBlocks).publicationQueueCapacity(publicationQueueCapacity)
        .bind("127.0.0.1:0").build();
    engine = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).poolThreads(1).build();
    discovery.put(record(new ModelKey(ENDPOINT, WORKER, null),
        "\"display_name\":\"bench-model\",\"kv_cache_block_size\":16,\"worker_type\":\"aggregated\","
            + "\"runtime_config\":{\"data_parallel_start_rank\":0,\"data_parallel_size\":1,\"total_kv_blocks\":1000}"));
    discovery.put(new EndpointRecord(new EndpointKey(ENDPOINT, WORKER), new Transport.Tcp("127.0.0.1:9/" + WORKER),
        "json", null));
    discovery.put(new EventSourceRecord(
        new EventSourceKey(new EventScope.Endpoint(ENDPOINT), EventTopics.KV_EVENTS, PUBLISHER_ID),
        new KvEventSource(ENDPOINT, WORKER, 0, PUBLISHER_ID, null)));
    if (kind == Plane.ZMQ) {
      discovery.put(new EventChannelRecord(new EventChannelKey(scope, EventTopics.KV_EVENTS, PUBLISHER_ID),
          new ChannelTransport.Zmq(publisher.endpoint())));
    }
    server = RelayGrpcServer.builder().engine(engine).build();
    server.start();
    client = RelayGrpcClient.builder().target("127.0.0.1:" + server.port()).inboundQueueBound(queueBound).build();
    pool = awaitPool();
    if (kind != Plane.MEMORY) {
      awaitFirstDelivery();
    }
  }

  /** Resends sequence 0 (a {@code Cleared}: nothing is stored yet) until the plane has delivered a message. */
  private void awaitFirstDelivery() throws InterruptedException {
    LongSupplier delivered = () -> kind == Plane.ZMQ ? ((ZmqEventPlane) plane).stats().delivered()
        : ((NatsEventPlane) plane).stats().delivered();
    long deadline = System.nanoTime() + PROBE_NANOS;
    while (delivered.getAsLong() == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(kind + " plane delivered nothing within 30 s");
      }
      publisher.publishProbe(new RouterEvent(WORKER, StorageTier.DEVICE, ResidencyDomain.WORKER, 0, 0,
          KvEventData.Cleared.INSTANCE));
      Thread.sleep(200);
    }
    nextEventId = 1;
  }

  /**
   * What the plane lost or saw out of order since it opened (empty if nothing): ZMQ dropped messages by reason,
   * sequence gaps and regressions, disconnects; NATS slow-consumer drops, gaps, regressions, disconnects.
   */
  String planeLosses() {
    if (plane instanceof ZmqEventPlane z) {
      var s = z.stats();
      return s.droppedTotal() + s.sequenceGaps() + s.sequenceRegressions() + s.disconnects() == 0 ? ""
          : "zmq dropped " + s.dropped() + ", gaps " + s.sequenceGaps() + " (" + s.missedMessages()
              + " missed), regressions " + s.sequenceRegressions() + ", disconnects " + s.disconnects();
    }
    if (plane instanceof NatsEventPlane n) {
      var s = n.stats();
      return s.droppedMessages() + s.sequenceGaps() + s.sequenceRegressions() + s.disconnects() == 0 ? ""
          : "nats dropped " + s.droppedMessages() + ", gaps " + s.sequenceGaps() + " (" + s.missingMessages()
              + " missing), regressions " + s.sequenceRegressions() + ", disconnects " + s.disconnects();
    }
    return "";
  }

  /** Messages the plane delivered to the engine so far (-1 for the in-memory plane, which does not count them). */
  long planeDelivered() {
    if (plane instanceof ZmqEventPlane z) {
      return z.stats().delivered();
    }
    return plane instanceof NatsEventPlane n ? n.stats().delivered() : -1;
  }

  private KvPoolDescriptor awaitPool() throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE_NANOS;
    while (System.nanoTime() < deadline) {
      for (KvPoolDescriptor d : engine.catalog().pools()) {
        if (d.servingEndpoint().equals(ENDPOINT)) {
          return d;
        }
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException("pool of " + ENDPOINT + " not in the catalog within 30 s");
  }

  private static ModelRecord record(ModelKey key, String body) throws Exception {
    return ModelRecord.of(key, (JsonObject) Json.parse("{" + body + "}"));
  }

  /** Local tokens hash of block {@code i} of Stored event {@code s}. */
  static long tokens(long s, int i) {
    return BenchmarkHashes.at(BenchmarkHashes.stream(41) + s * BLOCKS + i);
  }

  /** External id of block {@code i} of Stored event {@code s}. */
  static long external(long s, int i) {
    return BenchmarkHashes.at(BenchmarkHashes.stream(42) + s * BLOCKS + i);
  }

  /** The canonical sequence hashes of Stored event {@code s}'s blocks (the CKF keys). */
  static void canonicals(long s, long[] out) {
    long c = SequenceHash.root(tokens(s, 0));
    out[0] = c;
    for (int i = 1; i < BLOCKS; i++) {
      c = SequenceHash.child(c, tokens(s, i));
      out[i] = c;
    }
  }

  /** Publishes Stored event {@code s} (a fresh 16-block root chain) as the worker's next event. */
  void publishStored(long s) {
    List<StoredBlock> blocks = new ArrayList<>(BLOCKS);
    for (int i = 0; i < BLOCKS; i++) {
      blocks.add(StoredBlock.of(external(s, i), tokens(s, i)));
    }
    publisher.publish(new RouterEvent(WORKER, StorageTier.DEVICE, ResidencyDomain.WORKER, nextEventId++, 0,
        new KvEventData.Stored(OptionalLong.empty(), OptionalLong.empty(), blocks)));
  }

  /** Publishes the removal of every block of Stored event {@code s} as the worker's next event. */
  void publishRemoved(long s) {
    long[] ids = new long[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) {
      ids[i] = external(s, i);
    }
    publisher.publish(new RouterEvent(WORKER, StorageTier.DEVICE, ResidencyDomain.WORKER, nextEventId++, 0,
        KvEventData.Removed.of(ids)));
  }

  @Override
  public void close() {
    client.close();
    server.close();
    engine.close();
    publisher.close();
    plane.close();
    discovery.close();
    if (natsServer != null) {
      natsServer.close();
    }
  }
}
