package dev.kvrelay.engine;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe (one test thread): an engine on the in-memory discovery, event plane and request plane, with
 * simulated workers and polling helpers that wait for a condition with a deadline (never a fixed sleep).
 */
final class RelayHarness implements AutoCloseable {
  /** Bounds only a failing run: a loaded CI machine converges later, never differently. */
  static final long DEADLINE_MS = 30_000;
  final InMemoryDiscovery discovery = new InMemoryDiscovery();
  final InMemoryEventPlane plane = InMemoryEventPlane.create();
  final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  final List<SimWorker> workers = new ArrayList<>();
  RelayEngine engine;
  private final RelayEngineConfig config;
  private final boolean withRequests;

  RelayHarness() throws Exception {
    this(defaultConfig("dc-a"), true);
  }

  RelayHarness(RelayEngineConfig config, boolean withRequests) throws Exception {
    this.config = config;
    this.withRequests = withRequests;
    this.engine = build(null);
  }

  static RelayEngineConfig defaultConfig(String dc) throws RelayConfigException {
    return RelayEngineConfig.builder().dcId(dc).watchAll(true).expectedUniqueBlocks(4096).build();
  }

  RelayEngine build(@Nullable Long incarnation) throws Exception {
    RelayEngine.Builder b = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).poolThreads(2);
    if (withRequests) {
      b.requestPlane(requests);
    }
    if (incarnation != null) {
      b.relayIncarnation(incarnation);
    }
    return b.build();
  }

  /** Stops the engine and starts a new one (a relay restart) against the same discovery and planes. */
  RelayEngine restart() throws Exception {
    engine.close();
    engine = build(null);
    return engine;
  }

  static DynamoEndpointId ep(String path) {
    String[] p = path.split("/");
    return new DynamoEndpointId(p[0], p[1], p[2]);
  }

  SimWorker worker(String endpoint, long workerId, String cardBody) {
    return worker(endpoint, workerId, cardBody, 0, 1, true, null);
  }

  SimWorker worker(String endpoint, long workerId, String cardBody, int dpStart, int dpSize, boolean recoverable,
      @Nullable String kvStateEndpoint) {
    SimWorker w = new SimWorker(discovery, plane, requests, ep(endpoint), workerId, cardBody, dpStart, dpSize,
        recoverable, kvStateEndpoint == null ? null : ep(kvStateEndpoint), 16, null);
    workers.add(w);
    return w;
  }

  /** A base card body: model, block size 16, optional worker type and needs, runtime config with DP ranks. */
  static String card(String model, @Nullable String workerType, @Nullable String needs, int dpStart, int dpSize) {
    StringBuilder b = new StringBuilder("\"display_name\":\"").append(model).append("\",\"kv_cache_block_size\":16");
    if (workerType != null) {
      b.append(",\"worker_type\":\"").append(workerType).append('"');
    }
    if (needs != null) {
      b.append(",\"needs\":").append(needs);
    }
    b.append(",\"runtime_config\":{\"data_parallel_start_rank\":").append(dpStart)
        .append(",\"data_parallel_size\":").append(dpSize).append(",\"total_kv_blocks\":1000}");
    return b.toString();
  }

  CatalogSnapshot awaitCatalog(Predicate<CatalogSnapshot> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      CatalogSnapshot c = engine.catalog();
      if (condition.test(c)) {
        return c;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("catalog condition not met in time; last " + c);
      }
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
      if (System.nanoTime() > deadline) {
        throw new AssertionError("readiness condition not met in time; last " + t);
      }
      Thread.sleep(2);
    }
  }

  /**
   * Waits until the engine's one pool has bound {@code n} (worker, rank) sources. Events published before a relay
   * subscribed are not delivered, and a source bound after the pool's first source update is restored on its first
   * live event only (as upstream), so a test whose workers publish a fixed set of events lets them publish only
   * after this. The deadline (twice {@link #DEADLINE_MS}) only bounds a failing run.
   */
  void awaitSourcesBound(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * DEADLINE_MS);
    while (true) {
      List<dev.kvrelay.engine.stats.PoolStats> pools = engine.stats().pools();
      if (pools.size() == 1 && pools.get(0).recovery().sources().size() == n) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("relay " + engine.config().dcId() + " did not bind " + n + " sources in time: "
            + pools);
      }
      Thread.sleep(5);
    }
  }

  KvPoolDescriptor pool(DynamoEndpointId servingEndpoint) throws InterruptedException {
    CatalogSnapshot c = awaitCatalog(s -> find(s, servingEndpoint).isPresent());
    return find(c, servingEndpoint).orElseThrow();
  }

  static Optional<KvPoolDescriptor> find(CatalogSnapshot c, DynamoEndpointId servingEndpoint) {
    return c.pools().stream().filter(d -> d.servingEndpoint().equals(servingEndpoint)).findFirst();
  }

  WireReplica subscribe(KvPoolDescriptor d, String subscriber) throws Exception {
    RelayStream<PoolFrame> s = engine.subscribePool(d.poolId(), d.producer(), subscriber).get(DEADLINE_MS,
        TimeUnit.MILLISECONDS);
    return new WireReplica(d.producer(), s);
  }

  /** Waits until the replica's words equal the relay producer's words after a sync. */
  void awaitConverged(WireReplica replica, KvPoolId pool) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    long[] producer = null;
    while (System.nanoTime() < deadline) {
      engine.sync().get(DEADLINE_MS, TimeUnit.MILLISECONDS);
      replica.drain();
      if (replica.ended != null) {
        throw new AssertionError("pool stream ended: " + replica.ended);
      }
      producer = engine.producerWords(pool).get(DEADLINE_MS, TimeUnit.MILLISECONDS);
      if (replica.installed && producer != null && Arrays.equals(producer, replica.words)) {
        return;
      }
      Thread.sleep(2);
    }
    throw new AssertionError("replica did not converge: installed=" + replica.installed + " seq=" + replica.sequence
        + " differing buckets=" + differing(producer, replica.words));
  }

  /**
   * Waits until the replica equals the producer AND the producer holds exactly {@code live} (the workers' live
   * canonical hashes, re-read on every attempt): quiescence, whatever is still in flight on the planes.
   */
  void awaitExact(WireReplica replica, KvPoolDescriptor d, java.util.function.Supplier<java.util.Set<Long>> live)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    AssertionError last = null;
    while (System.nanoTime() < deadline) {
      try {
        awaitConverged(replica, d.poolId());
        RelayEngineScenarioTest.assertHolds(replica.words, d.producer().ckfFormat(), live.get());
        return;
      } catch (AssertionError e) {
        last = e;
        Thread.sleep(5);
      }
    }
    throw last;
  }

  private static int differing(long @Nullable [] a, long @Nullable [] b) {
    if (a == null || b == null) {
      return -1;
    }
    int n = 0;
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        n++;
      }
    }
    return n;
  }

  @Override
  public void close() {
    engine.close();
    requests.close();
    plane.close();
    discovery.close();
  }
}
