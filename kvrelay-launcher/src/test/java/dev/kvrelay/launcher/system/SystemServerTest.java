package dev.kvrelay.launcher.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.EngineFaults;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.health.RelayHealth;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The system server against a real engine on the in-memory planes, read with java.net.http. */
class SystemServerTest {
  private static final long DEADLINE_MS = 30_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> LOCAL = Map.of("DYN_SYSTEM_PORT", "0", "DYN_SYSTEM_HOST", "127.0.0.1");

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final InMemoryDiscovery discovery = new InMemoryDiscovery();
  private final InMemoryEventPlane plane = InMemoryEventPlane.create();
  private final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  private final AtomicReference<WanStatus> wan = new AtomicReference<>(WanStatus.DISABLED);
  private final List<AutoCloseable> closing = new ArrayList<>();
  private RelayEngine engine;

  @BeforeEach
  void startEngine() throws Exception {
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-a").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:5561").set(RelayConfigKey.MAX_CATALOG_SUBSCRIBERS, 1).build();
    engine = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).requestPlane(requests)
        .poolThreads(2).build();
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    engine.close();
    requests.close();
    plane.close();
    discovery.close();
  }

  private SystemServer start(Map<String, String> env) throws Exception {
    Map<String, String> all = new HashMap<>(LOCAL);
    all.putAll(env);
    all.put("DYN_NAMESPACE", "relay");
    all.put("POD_UID", "uid-1");
    SystemServer server = SystemServer.start(SystemServerSettings.fromEnvironment(all), engine,
        RelayProcessInfo.discovery(all, wan::get));
    closing.add(server);
    return server;
  }

  private HttpResponse<String> get(SystemServer server, String path) throws Exception {
    return send(server, path, "GET");
  }

  private HttpResponse<String> send(SystemServer server, String path, String method) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody()).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not in time: " + what);
      }
      Thread.sleep(5);
    }
  }

  /** Polls health until it answers {@code status}. */
  private HttpResponse<String> awaitHealth(SystemServer server, String path, int status) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      HttpResponse<String> r = get(server, path);
      if (r.statusCode() == status) {
        return r;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("health stayed " + r.statusCode() + ": " + r.body());
      }
      Thread.sleep(5);
    }
  }

  @Test
  void portMinusOneStartsNothing() throws Exception {
    SystemServerSettings off = SystemServerSettings.fromEnvironment(Map.of());
    assertThat(SystemServer.startIfEnabled(off, engine, RelayProcessInfo.discovery(Map.of(), wan::get))).isEmpty();
    assertThatThrownBy(() -> SystemServer.start(off, engine, RelayProcessInfo.discovery(Map.of(), wan::get)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the system server is disabled (DYN_SYSTEM_PORT=-1)");
  }

  @Test
  void portZeroBindsAFreePortAndHealthAndLiveAnswerUpstreamsBody() throws Exception {
    SystemServer server = start(Map.of());
    assertThat(server.port()).isPositive();
    for (String path : List.of("/health", "/live")) {
      HttpResponse<String> r = get(server, path);
      assertThat(r.statusCode()).as(path).isEqualTo(200);
      assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
      JsonNode body = JSON.readTree(r.body());
      assertThat(fieldNames(body)).containsExactly("status", "uptime", "endpoints");
      assertThat(body.get("status").asText()).isEqualTo("ready");
      assertThat(fieldNames(body.get("uptime"))).containsExactly("secs", "nanos");
      assertThat(body.get("uptime").get("secs").isIntegralNumber()).isTrue();
      assertThat(body.get("uptime").get("nanos").asLong()).isBetween(0L, 999_999_999L);
      assertThat(body.get("endpoints").isObject()).isTrue();
    }
    HttpResponse<String> unknown = get(server, "/nope");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).isEqualTo("Route not found");
    assertThat(get(server, "/engine/other").statusCode()).isEqualTo(404);
    HttpResponse<String> post = send(server, "/health", "POST");
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD");
  }

  @Test
  void aPositivePortIsBoundAsGiven() throws Exception {
    SystemServer server = null;
    IOException last = null;
    for (int attempt = 0; attempt < 5 && server == null; attempt++) {
      int port;
      try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = probe.getLocalPort();
      }
      try {
        server = start(Map.of("DYN_SYSTEM_PORT", Integer.toString(port)));
        assertThat(server.port()).isEqualTo(port);
      } catch (IOException e) {
        last = e; // another process took the probed port meanwhile: probe again
      }
    }
    assertThat(server).as("bound after 5 probes, last error %s", last).isNotNull();
    assertThat(get(server, "/health").statusCode()).isEqualTo(200);
  }

  @Test
  void aPortInUseFailsWithTheAddressInTheMessage() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> start(Map.of("DYN_SYSTEM_PORT", Integer.toString(port))))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("system server cannot bind 127.0.0.1:" + port + ": ");
    }
  }

  @Test
  void healthAndLivePathsFollowTheirVariables() throws Exception {
    SystemServer server = start(Map.of("DYN_SYSTEM_HEALTH_PATH", "/ready/z", "DYN_SYSTEM_LIVE_PATH", "/alive"));
    assertThat(get(server, "/ready/z").statusCode()).isEqualTo(200);
    assertThat(get(server, "/alive").statusCode()).isEqualTo(200);
    assertThat(get(server, "/health").statusCode()).isEqualTo(404);
    assertThat(get(server, "/live").statusCode()).isEqualTo(404);
    assertThat(get(server, "/ready").statusCode()).isEqualTo(404);
  }

  @Test
  void healthFollowsTheWanListenerAndShutdown() throws Exception {
    SystemServer server = start(Map.of());
    wan.set(new WanStatus(true, false, null, null));
    assertThat(JSON.readTree(awaitHealth(server, "/health", 503).body()).get("status").asText())
        .isEqualTo("notready");
    assertThat(get(server, "/live").statusCode()).isEqualTo(503);
    wan.set(new WanStatus(true, true, "127.0.0.1:5561", null));
    assertThat(JSON.readTree(awaitHealth(server, "/health", 200).body()).get("status").asText()).isEqualTo("ready");
    wan.set(new WanStatus(true, true, "127.0.0.1:5561", "transport failed"));
    awaitHealth(server, "/health", 503);
    assertThat(server.health().healthy()).isFalse();
    wan.set(new WanStatus(true, true, "127.0.0.1:5561", null));
    awaitHealth(server, "/health", 200);
    server.beginShutdown();
    awaitHealth(server, "/live", 503);
    assertThat(server.health().shuttingDown()).isTrue();
  }

  @Test
  void aTerminalHostFailureTurnsHealthNotReadyWithTheHostError() throws Exception {
    SystemServer server = start(Map.of());
    awaitHealth(server, "/health", 200);
    EngineFaults.failHost(engine, new IllegalStateException("load publisher sequence space exhausted"));
    awaitHealth(server, "/health", 503);
    RelayHealth h = server.health();
    assertThat(h.hostLastError()).isEqualTo("load publisher sequence space exhausted");
    assertThat(h.healthy()).isFalse();
  }

  @Test
  void aClosedEngineIsShuttingDown() throws Exception {
    SystemServer server = start(Map.of());
    awaitHealth(server, "/health", 200);
    engine.close();
    awaitHealth(server, "/health", 503);
    assertThat(server.health().shuttingDown()).isTrue();
    assertThat(server.health().hostLastError()).isNull();
  }

  @Test
  void engineStateIsTheBindingsObject() throws Exception {
    SystemServer server = start(Map.of());
    wan.set(new WanStatus(true, true, "127.0.0.1:5561", null));
    HttpResponse<String> r = get(server, "/engine/state");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode state = JSON.readTree(r.body());
    assertThat(fieldNames(state)).containsExactly("podUID", "mode", "connectionRevision", "ready", "sources");
    assertThat(state.get("podUID").asText()).isEqualTo("uid-1");
    assertThat(state.get("mode").asText()).isEqualTo("discovery");
    assertThat(state.get("connectionRevision").isNull()).isTrue();
    assertThat(state.get("ready").asBoolean()).isTrue();
    JsonNode sources = state.get("sources");
    assertThat(fieldNames(sources)).containsExactly("desiredRevision", "appliedRevision", "count", "lastError");
    assertThat(sources.get("count").asLong()).isZero();
    wan.set(new WanStatus(true, false, null, null));
    assertThat(JSON.readTree(get(server, "/engine/state").body()).get("ready").asBoolean()).isFalse();
  }

  @Test
  void metricsMatchTheEnginesStateAfterKnownEvents() throws Exception {
    SystemServer server = start(Map.of());
    SystemTestWorkers.Worker worker = SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane,
        requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    KvPoolDescriptor pool = engine.catalog().pools().get(0);
    int[] tokens = new int[SystemTestWorkers.BLOCK_SIZE * 3];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = 1000 + i;
    }
    assertThat(worker.cache(tokens)).isEqualTo(3);
    RelayStream<PoolFrame> poolStream = WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "sub-pool")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    closing.add(poolStream);
    RelayStream<CatalogUpdate> catalog = WireSources.of(engine).watchCatalog("sub-catalog");
    closing.add(catalog);
    assertThatThrownBy(() -> WireSources.of(engine).watchCatalog("sub-catalog-2"))
        .isInstanceOfSatisfying(RelayException.class,
            e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.RESOURCE_LIMIT));
    await("3 blocks resident", () -> resident(engine.stats()) == 3);
    // the status page's own load-window watches (StatusSampler.WATCH_ID) are one subscriber of each load stream
    await("the status page's load watches open", () -> engine.stats().streams().load().subscribers() == 1
        && engine.stats().streams().servingLoad().subscribers() == 1);

    RelayEngineStats before = engine.stats(); // counters that move on timers lie between this read and the next
    HttpResponse<String> r = get(server, "/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain; version=0.0.4");
    PrometheusText m = PrometheusText.parse(r.body());
    RelayEngineStats s = engine.stats();
    String[] base = {"dynamo_namespace", "relay", "dynamo_component", "kv_dc_relay"};
    String up = "dynamo_component_kv_dc_relay_";

    assertThat(m.types).containsEntry(up + "subscribers", "gauge")
        .containsEntry(up + "subscriber_lagged_total", "counter")
        .containsEntry(up + "catalog_pool_count", "gauge");
    assertThat(m.value(up + "subscribers", with(base, "stream", "pool"))).isEqualTo(1);
    assertThat(m.value(up + "subscribers", with(base, "stream", "catalog"))).isEqualTo(1);
    assertThat(m.value(up + "subscribers", with(base, "stream", "readiness"))).isZero();
    assertThat(m.value(up + "subscribers", with(base, "stream", "load"))).isEqualTo(1);
    assertThat(m.value(up + "subscribers", with(base, "stream", "serving_load"))).isEqualTo(1);
    assertThat(m.value(up + "subscriber_limit_rejected_total", with(base, "stream", "catalog", "scope", "total")))
        .isEqualTo(1);
    assertThat(m.value(up + "subscriber_limit_rejected_total", with(base, "stream", "pool", "scope", "per_pool")))
        .isZero();
    assertThat(m.value(up + "subscriber_limit_rejected_total",
        with(base, "stream", "pool", "scope", "initialized_hub"))).isZero();
    assertThat(m.value(up + "subscriber_lagged_total", with(base, "stream", "pool"))).isZero();
    assertThat(m.value(up + "catalog_pool_count", base)).isEqualTo(1);
    assertThat(m.value(up + "requested_publication_hub_count", base)).isEqualTo(1);
    assertThat(m.value(up + "initialized_publication_hub_count", base)).isEqualTo(1);
    assertThat(m.value(up + "ready_publication_hub_count", base)).isEqualTo(1);
    assertThat(m.value(up + "idle_publication_hub_count", base)).isZero();
    assertThat(m.value(up + "terminal_publication_failures_total", base)).isZero();
    assertThat(m.value(up + "serving_topology_count", with(base, "state", "ready")))
        .isEqualTo(engine.readiness().entries().size()).isEqualTo(1);
    assertThat(m.value(up + "serving_topology_count", with(base, "state", "unknown"))).isZero();
    assertThat(m.value(up + "serving_topology_count", with(base, "state", "unavailable"))).isZero();
    assertThat(m.value(up + "pool_heartbeats_total", base))
        .isBetween((double) before.hubs().heartbeats(), (double) s.hubs().heartbeats());
    assertThat(m.value(up + "load_updates_total", base))
        .isBetween((double) before.streams().loadUpdates(), (double) s.streams().loadUpdates());
    assertThat(m.value(up + "degraded_load_coverage_pool_count", base)).isBetween(0.0, 1.0);

    String p = "ns.backend.generate";
    PoolStats ps = s.pools().get(0);
    assertThat(m.value("kvrelay_pool_events_total", with(base, "pool", p, "outcome", "applied")))
        .isEqualTo(ps.actor().appliedEvents()); // 0 when the worker's restore delivered the blocks first
    assertThat(m.value("kvrelay_pool_resident_hashes", with(base, "pool", p))).isEqualTo(3);
    assertThat(m.value("kvrelay_pool_ckf_slots", with(base, "pool", p)))
        .isEqualTo(pool.producer().ckfFormat().bucketCount() * 4.0);
    assertThat(m.value("kvrelay_pool_ckf_occupied_slots", with(base, "pool", p))).isEqualTo(3);
    assertThat(m.value("kvrelay_pool_ckf_fill_ratio", with(base, "pool", p)))
        .isEqualTo(3.0 / (pool.producer().ckfFormat().bucketCount() * 4.0));
    assertThat(m.value("kvrelay_pool_capacity_omissions_total", with(base, "pool", p))).isZero();
    assertThat(m.value("kvrelay_pool_backpressure_waits_total", with(base, "pool", p)))
        .isEqualTo(ps.recovery().backpressureWaits());
    assertThat(m.value("kvrelay_pool_recovery_task_failures_total", with(base, "pool", p))).isZero();
    // 1 when the worker's restore delivered the blocks before their live event (that event is then stale); the
    // scrape came before the stats read and the counter only grows.
    assertThat(m.value("kvrelay_pool_ingest_dropped_total", with(base, "pool", p, "reason", "stale")))
        .isIn(0.0, 1.0).isLessThanOrEqualTo(ps.recovery().stale());
    assertThat(m.value("kvrelay_pool_starts_total", base)).isEqualTo(s.poolStarts()).isEqualTo(1);
    assertThat(m.types).containsKey("jvm_memory_used_bytes").containsKey("jvm_threads_current");

    poolStream.close();
    catalog.close();
    await("no pool subscriber", () -> engine.stats().streams().pool().subscribers() == 0);
    PrometheusText after = PrometheusText.parse(get(server, "/metrics").body());
    assertThat(after.value(up + "subscribers", with(base, "stream", "pool"))).isZero();
    assertThat(after.value(up + "subscribers", with(base, "stream", "catalog"))).isZero();
    assertThat(after.value(up + "idle_publication_hub_count", base)).isEqualTo(1);

    HttpResponse<String> health = get(server, "/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(health.body()).get("endpoints").get(p).asText()).isEqualTo("ready");
    RelayHealth h = server.health();
    assertThat(h.endpointCount()).isEqualTo(1);
    assertThat(h.activeEndpointCount()).isEqualTo(1);
    assertThat(h.fencedEndpointCount()).isZero();
    System.out.println("scraped series:\n" + seriesList(after));
  }

  @Test
  void replicaLagPerSubscriberRisesForAnUnreadStreamAndIsZeroForADrainedOne() throws Exception {
    SystemServer server = start(Map.of());
    SystemTestWorkers.Worker worker = SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane,
        requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    KvPoolDescriptor pool = engine.catalog().pools().get(0);
    String endpoint = pool.servingEndpoint().dottedName();
    RelayStream<PoolFrame> slow = WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "slow")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    closing.add(slow);
    RelayStream<PoolFrame> fast = WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "fast")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    closing.add(fast);
    for (int p = 0; p < 3; p++) {
      int[] tokens = new int[SystemTestWorkers.BLOCK_SIZE * 2];
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = 5000 + 100 * p + i;
      }
      assertThat(worker.cache(tokens)).isEqualTo(2);
    }
    await("6 blocks resident", () -> resident(engine.stats()) == 6);
    engine.sync().get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    String[] base = {"dynamo_namespace", "relay", "dynamo_component", "kv_dc_relay"};
    String frames = "kvrelay_subscriber_replica_lag_frames";
    String seqs = "kvrelay_subscriber_replica_lag_sequences";
    // The fast subscriber takes everything; its gauges read 0 once it is drained.
    long fastDeltas = 0;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    PrometheusText m;
    for (;;) {
      PoolFrame f;
      while ((f = fast.poll()) != null) {
        if (f.kind() == PoolFrame.Kind.DELTA) {
          fastDeltas++;
        }
      }
      m = PrometheusText.parse(get(server, "/metrics").body());
      if (fastDeltas > 0 && m.value(frames, with(base, "pool", endpoint, "subscriber", "fast")) == 0
          && m.value(seqs, with(base, "pool", endpoint, "subscriber", "fast")) == 0) {
        break;
      }
      assertThat(System.nanoTime()).as("fast subscriber drained").isLessThan(deadline);
      Thread.sleep(5);
    }
    assertThat(m.types).containsEntry(frames, "gauge").containsEntry(seqs, "gauge");
    // The unread one lags by every delta the fast one took (the worker is idle now).
    double slowFrames = m.value(frames, with(base, "pool", endpoint, "subscriber", "slow"));
    double slowSeqs = m.value(seqs, with(base, "pool", endpoint, "subscriber", "slow"));
    assertThat(slowFrames).isGreaterThan(0);
    long slowDeltas = 0;
    PoolFrame f;
    while ((f = slow.poll(1, TimeUnit.SECONDS)) != null && f.kind() != PoolFrame.Kind.HEARTBEAT) {
      if (f.kind() == PoolFrame.Kind.DELTA) {
        slowDeltas++;
      }
    }
    assertThat(slowDeltas).isEqualTo((long) slowFrames).isEqualTo((long) slowSeqs);
    m = PrometheusText.parse(get(server, "/metrics").body());
    assertThat(m.value(frames, with(base, "pool", endpoint, "subscriber", "slow"))).isZero();
    assertThat(m.value(seqs, with(base, "pool", endpoint, "subscriber", "slow"))).isZero();
  }

  @Test
  void poolRefusalsAreSplitByScope() throws Exception {
    engine.close();
    engine = RelayEngine.builder().config(RelayEngineConfig.builder().dcId("dc-a").watchAll(true)
            .expectedUniqueBlocks(4096).bind("127.0.0.1:5561").set(RelayConfigKey.MAX_SUBSCRIBERS_PER_POOL, 1)
            .set(RelayConfigKey.MAX_INITIALIZED_POOL_HUBS, 1).build())
        .discovery(discovery).eventPlane(plane).requestPlane(requests).poolThreads(2).build();
    SystemServer server = start(Map.of());
    SystemTestWorkers.start("ns/a/generate", 1, "model-a", discovery, plane, requests);
    SystemTestWorkers.start("ns/b/generate", 2, "model-b", discovery, plane, requests);
    await("two pools", () -> engine.catalog().pools().size() == 2);
    KvPoolDescriptor a = engine.catalog().pools().stream()
        .filter(d -> d.servingEndpoint().component().equals("a")).findFirst().orElseThrow();
    KvPoolDescriptor b = engine.catalog().pools().stream()
        .filter(d -> d.servingEndpoint().component().equals("b")).findFirst().orElseThrow();
    closing.add(WireSources.of(engine).subscribePool(a.poolId(), a.producer(), "s1").get(DEADLINE_MS, TimeUnit.MILLISECONDS));
    assertRefused(WireSources.of(engine).subscribePool(a.poolId(), a.producer(), "s2"));
    assertRefused(WireSources.of(engine).subscribePool(b.poolId(), b.producer(), "s3"));

    PrometheusText m = PrometheusText.parse(get(server, "/metrics").body());
    String[] base = {"dynamo_namespace", "relay", "dynamo_component", "kv_dc_relay"};
    String rejected = "dynamo_component_kv_dc_relay_subscriber_limit_rejected_total";
    assertThat(m.value(rejected, with(base, "stream", "pool", "scope", "per_pool"))).isEqualTo(1);
    assertThat(m.value(rejected, with(base, "stream", "pool", "scope", "initialized_hub"))).isEqualTo(1);
    assertThat(m.value(rejected, with(base, "stream", "pool", "scope", "total"))).isZero();
    assertThat(m.value("dynamo_component_kv_dc_relay_subscribers", with(base, "stream", "pool"))).isEqualTo(1);
    assertThat(m.value("dynamo_component_kv_dc_relay_catalog_pool_count", base)).isEqualTo(2);
    assertThat(m.value("dynamo_component_kv_dc_relay_requested_publication_hub_count", base)).isEqualTo(1);
    assertThat(m.value("dynamo_component_kv_dc_relay_ready_publication_hub_count", base)).isEqualTo(1);
    assertThat(m.value("dynamo_component_kv_dc_relay_serving_topology_count", with(base, "state", "ready")))
        .isEqualTo(2);
    RelayEngineStats.Hubs hubs = engine.stats().hubs();
    assertThat(hubs.refusedResourceLimit()).isEqualTo(2);
    assertThat(hubs.refusedInitializedHubLimit()).isEqualTo(1);
  }

  private static void assertRefused(java.util.concurrent.CompletableFuture<?> subscribe) {
    assertThatThrownBy(() -> subscribe.get(DEADLINE_MS, TimeUnit.MILLISECONDS))
        .isInstanceOf(java.util.concurrent.ExecutionException.class)
        .cause().isInstanceOfSatisfying(RelayException.class,
            e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.RESOURCE_LIMIT));
  }

  private static long resident(RelayEngineStats s) {
    return s.pools().isEmpty() || s.pools().get(0).actor() == null ? -1
        : s.pools().get(0).actor().producer().residentCount();
  }

  private static String[] with(String[] base, String... more) {
    String[] out = new String[base.length + more.length];
    System.arraycopy(base, 0, out, 0, base.length);
    System.arraycopy(more, 0, out, base.length, more.length);
    return out;
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** Name and label names of every non-JVM series, for the report. */
  private static String seriesList(PrometheusText t) {
    StringBuilder b = new StringBuilder();
    t.samples.forEach((name, series) -> {
      if (name.startsWith("dynamo_") || name.startsWith("kvrelay_")) {
        java.util.Set<String> labelSets = new java.util.TreeSet<>();
        series.keySet().forEach(l -> {
          Map<String, String> shown = new java.util.TreeMap<>(l);
          shown.remove("dynamo_namespace");
          shown.remove("dynamo_component");
          shown.remove("pool");
          labelSets.add(shown.toString());
        });
        b.append(name).append(' ').append(t.types.getOrDefault(name, "?"))
            .append(' ').append(labelSets).append('\n');
      }
    });
    return b.toString();
  }
}
