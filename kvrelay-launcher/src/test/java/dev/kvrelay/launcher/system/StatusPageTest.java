package dev.kvrelay.launcher.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code /status} and {@code /status.json} against a real engine on the in-memory planes with a simulated worker. */
class StatusPageTest {
  private static final long DEADLINE_MS = 30_000;
  private static final long WINDOW_MS = 100;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> LOCAL = Map.of("DYN_SYSTEM_PORT", "0", "DYN_SYSTEM_HOST", "127.0.0.1");

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final InMemoryDiscovery discovery = new InMemoryDiscovery();
  private final InMemoryEventPlane plane = InMemoryEventPlane.create();
  private final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private RelayEngine engine;
  private SystemServer server;

  @BeforeEach
  void start() throws Exception {
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-a").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:5561").loadWindowMs(WINDOW_MS)
        // an unread subscriber is the point of the lag test: heartbeats must not fill its queue and end it as lagged
        // however slowly a loaded machine runs the test
        .publicationQueueCapacity(100_000).build();
    engine = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).requestPlane(requests)
        .poolThreads(2).build();
    server = SystemServer.start(SystemServerSettings.fromEnvironment(LOCAL), engine,
        RelayProcessInfo.discovery(Map.of(), () -> WanStatus.DISABLED));
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    server.close();
    engine.close();
    requests.close();
    plane.close();
    discovery.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(20)).GET().build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode statusJson() throws Exception {
    HttpResponse<String> r = get(SystemServer.STATUS_JSON_PATH);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    return JSON.readTree(r.body());
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

  private static int[] tokens(int blocks, int base) {
    int[] t = new int[SystemTestWorkers.BLOCK_SIZE * blocks];
    for (int i = 0; i < t.length; i++) {
      t[i] = base + i;
    }
    return t;
  }

  private static long publishedSequence(RelayEngineStats s) {
    return s.pools().isEmpty() || s.pools().get(0).actor() == null ? 0
        : s.pools().get(0).actor().producer().lastSequence();
  }

  private static long resident(RelayEngineStats s) {
    return s.pools().isEmpty() || s.pools().get(0).actor() == null ? -1
        : s.pools().get(0).actor().producer().residentCount();
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void statusJsonMatchesTheEnginesStateAfterKnownEvents() throws Exception {
    SystemTestWorkers.Worker worker = SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane,
        requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    KvPoolDescriptor pool = engine.catalog().pools().get(0);
    RelayStream<PoolFrame> stream = WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "sub-pool")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    closing.add(stream);
    assertThat(worker.cache(tokens(3, 1000))).isEqualTo(3);
    await("3 blocks resident", () -> resident(engine.stats()) == 3);
    await("readiness for llama", () -> !engine.readiness().entries().isEmpty());
    engine.sync().get(DEADLINE_MS, TimeUnit.MILLISECONDS);

    JsonNode j = statusJson();
    RelayEngineStats s = engine.stats();
    PoolStats ps = s.pools().get(0);
    assertThat(j.get("dcName").asText()).isEqualTo("dc-a");
    assertThat(j.get("dcId").asText()).isEqualTo(engine.config().dcId().hex()).hasSize(16);
    assertThat(j.get("incarnation").asText())
        .isEqualTo(Long.toUnsignedString(engine.identity().relayIncarnation()));
    assertThat(j.get("drtInstanceId").asText()).isEqualTo(Long.toUnsignedString(engine.identity().drtInstanceId()));
    assertThat(j.get("uptimeSeconds").asDouble()).isPositive();
    assertThat(j.get("poolSubscribers").asInt()).isEqualTo(1);
    assertThat(j.get("catalogRevision").asLong()).isEqualTo(s.catalogRevision());

    assertThat(j.get("pools")).hasSize(1);
    JsonNode p = j.get("pools").get(0);
    assertThat(p.get("endpoint").asText()).isEqualTo("ns.backend.generate");
    assertThat(p.get("state").asText()).isEqualTo("RUNNING");
    assertThat(p.get("generation").asText()).isEqualTo(Long.toUnsignedString(pool.producer().layoutGeneration()));
    assertThat(p.get("producerIncarnation").asText())
        .isEqualTo(Long.toUnsignedString(pool.producer().producerIncarnation()));
    int buckets = pool.producer().ckfFormat().bucketCount();
    assertThat(p.get("buckets").asInt()).isEqualTo(buckets);
    assertThat(p.get("slots").asLong()).isEqualTo(4L * buckets);
    assertThat(p.get("occupiedSlots").asLong()).isEqualTo(3).isEqualTo(ps.actor().producer().occupiedSlots());
    assertThat(p.get("fill").asDouble()).isEqualTo(3.0 / (4L * buckets));
    assertThat(p.get("residentHashes").asLong()).isEqualTo(3);
    assertThat(p.get("capacityOmissions").asLong()).isZero();
    assertThat(p.get("appliedEvents").asLong()).isEqualTo(ps.actor().appliedEvents());
    assertThat(p.get("sequence").asText()).isEqualTo(Long.toUnsignedString(ps.actor().producer().lastSequence()));
    assertThat(p.get("publishedDeltas").asLong()).isEqualTo(ps.actor().publishedDeltas());
    assertThat(p.get("recovery").get("ingested").asLong()).isEqualTo(ps.recovery().applied());
    assertThat(p.get("recovery").get("gaps").asLong()).isEqualTo(ps.recovery().gaps());
    assertThat(p.get("load").get("applied").asLong()).isEqualTo(ps.load().applied());

    assertThat(j.get("readiness")).hasSize(engine.readiness().entries().size());
    TopologyEntry e = engine.readiness().entries().get(0);
    JsonNode r = j.get("readiness").get(0);
    assertThat(r.get("namespace").asText()).isEqualTo("ns");
    assertThat(r.get("model").asText()).isEqualTo("llama").isEqualTo(e.canonicalModelId());
    assertThat(r.get("state").asText()).isEqualTo(e.state().name());
    assertThat(texts(r.get("presentRoles"))).isEqualTo(e.presentRoles().stream().map(WorkerRole::text).toList())
        .isNotEmpty();
    assertThat(texts(r.get("missingRoles"))).isEqualTo(e.missingRoles().stream().map(WorkerRole::text).toList());
    assertThat(j.get("errors").get("sourceFaults").asLong()).isEqualTo(s.sourceFaults());
    assertThat(j.get("errors").get("eventDecodeErrors").asLong()).isEqualTo(s.eventDecodeErrors());

    // A live event after the restore is applied: one sampled interval holds it.
    assertThat(worker.cache(tokens(2, 5000))).isEqualTo(2);
    await("5 blocks resident", () -> resident(engine.stats()) == 5);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      JsonNode h = statusJson().get("pools").get(0).get("history").get("eventsPerSecond");
      boolean positive = false;
      for (JsonNode v : h) {
        positive |= v.asDouble() > 0;
      }
      assertThat(h.size()).isLessThanOrEqualTo(StatusSampler.CAPACITY);
      if (positive) {
        break;
      }
      assertThat(System.nanoTime()).as("an events/s sample > 0 in time").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void theHtmlEscapesAHostileModelName() throws Exception {
    String hostile = "<script>alert('x')</script>&\"m\"";
    SystemTestWorkers.start("ns/backend/generate", 7, hostile, discovery, plane, requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    await("readiness for the model", () -> !engine.readiness().entries().isEmpty());

    HttpResponse<String> page = get(SystemServer.STATUS_PATH);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    String body = page.body();
    assertThat(body).doesNotContain("<script").doesNotContain(hostile)
        .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;m&quot;")
        .contains("<tr class=\"readiness\" data-model=\"&lt;script&gt;")
        .contains("<tr class=\"pool\" data-endpoint=\"ns.backend.generate\">")
        .contains("<meta http-equiv=\"refresh\" content=\"2\">");
    assertThat(statusJson().get("readiness").get(0).get("model").asText()).isEqualTo(hostile);
  }

  @Test
  void sparklineScalesToItsMaximumAndOtherMethodsAre405() throws Exception {
    String svg = StatusHtml.sparkline(new double[] {0, 5, 10}, "#000");
    assertThat(svg).startsWith("<svg class=\"spark\"").endsWith("</svg>").contains("points=\"")
        .contains(",1.0 ").contains(",23.0 ");
    assertThat(StatusHtml.sparkline(new double[] {1}, "#000")).doesNotContain("polyline");
    HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/status"))
        .POST(HttpRequest.BodyPublishers.noBody()).build();
    assertThat(http.send(post, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
  }

  /** The subscriber rows of {@code s} for {@code pool}, by subscriber id. */
  private static Map<String, RelayEngineStats.SubscriberLag> lagOf(RelayEngineStats s, KvPoolDescriptor pool) {
    Map<String, RelayEngineStats.SubscriberLag> out = new java.util.TreeMap<>();
    for (RelayEngineStats.SubscriberLag l : s.hubs().subscribers()) {
      if (l.pool().equals(pool.poolId())) {
        out.put(l.subscriberId(), l);
      }
    }
    return out;
  }

  @Test
  void subscriberRowsShowTheLagTheEngineReportsAndTheLagSparklineFollowsIt() throws Exception {
    SystemTestWorkers.Worker worker = SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane,
        requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    KvPoolDescriptor pool = engine.catalog().pools().get(0);
    RelayStream<PoolFrame> lagging = WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "sub-lagging")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    closing.add(lagging);
    RelayStream<PoolFrame> keeping = WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "sub-keeping")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    closing.add(keeping);
    for (int i = 1; i <= 4; i++) {
      // one block at a time, each published before the next: one delta each (not two coalesced by the timer)
      long published = publishedSequence(engine.stats());
      assertThat(worker.cache(tokens(1, 10_000 * i))).isEqualTo(1);
      int blocks = i;
      await(blocks + " blocks resident", () -> resident(engine.stats()) == blocks);
      await("block " + blocks + "'s delta published",
          () -> Long.compareUnsigned(publishedSequence(engine.stats()), published) > 0);
    }
    await("sub-lagging ≥ 3 deltas behind", () -> {
      RelayEngineStats.SubscriberLag l = lagOf(engine.stats(), pool).get("sub-lagging");
      return l != null && l.sequenceLag() >= 3;
    });
    engine.sync().get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    while (keeping.poll() != null) {
      // sub-keeping takes everything queued so far
    }

    // Read the engine before and after the page: when both reads agree, the page must show exactly that.
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    JsonNode j;
    Map<String, RelayEngineStats.SubscriberLag> before;
    while (true) {
      before = lagOf(engine.stats(), pool);
      j = statusJson();
      if (before.equals(lagOf(engine.stats(), pool))) {
        break;
      }
      assertThat(System.nanoTime()).as("two equal reads around the page in time").isLessThan(deadline);
    }
    assertThat(before).containsOnlyKeys("sub-keeping", "sub-lagging");
    JsonNode p = j.get("pools").get(0);
    JsonNode subs = p.get("subscribers");
    assertThat(subs).hasSize(2);
    assertThat(subs.get(0).get("subscriberId").asText()).isEqualTo("sub-keeping");
    assertThat(subs.get(1).get("subscriberId").asText()).isEqualTo("sub-lagging");
    for (JsonNode row : subs) {
      RelayEngineStats.SubscriberLag l = before.get(row.get("subscriberId").asText());
      assertThat(row.get("stream").asText()).isEqualTo(l.stream()).isEqualTo("pool");
      assertThat(row.get("sequenceLag").asText()).isEqualTo(Long.toUnsignedString(l.sequenceLag()));
      assertThat(row.get("queuedFrames").asInt()).isEqualTo(l.queuedFrames());
      assertThat(row.get("queuedBytes").asLong()).isEqualTo(l.queuedBytes());
      assertThat(row.get("publishedSequence").asText()).isEqualTo(Long.toUnsignedString(l.publishedSequence()));
      assertThat(row.get("deliveredSequence").asText()).isEqualTo(Long.toUnsignedString(l.deliveredSequence()));
      assertThat(row.get("pendingSnapshotChunks").asInt()).isEqualTo(l.pendingSnapshotChunks());
      assertThat(row.get("connectedSinceMicros").asLong()).isEqualTo(l.connectedSinceMicros());
    }
    long lag = before.get("sub-lagging").sequenceLag();
    assertThat(lag).isGreaterThanOrEqualTo(3);
    assertThat(before.get("sub-keeping").sequenceLag()).isLessThan(lag);
    assertThat(p.get("maxLag").asLong()).isEqualTo(lag);
    assertThat(j.get("unattachedSubscribers")).isEmpty();
    // Per-source recovery rows: the engine's own sources (identity and state; the age moves between reads).
    java.util.List<dev.kvrelay.engine.stats.PoolStats.SourceRecovery> sources =
        engine.stats().pools().get(0).recovery().sources();
    assertThat(sources).isNotEmpty();
    JsonNode rows = p.get("sources");
    assertThat(rows).hasSize(sources.size());
    for (int i = 0; i < sources.size(); i++) {
      dev.kvrelay.engine.stats.PoolStats.SourceRecovery s = sources.get(i);
      assertThat(rows.get(i).get("workerId").asText()).isIn(Long.toUnsignedString(s.workerId()),
          Long.toString(s.workerId()));
      assertThat(rows.get(i).get("dpRank").asInt()).isEqualTo(s.dpRank());
      assertThat(rows.get(i).get("state").asText()).isEqualTo(s.state().name()).isEqualTo("LIVE");
      assertThat(rows.get(i).get("lastEventAgeMs").asLong()).isNotNegative();
    }

    String html = get(SystemServer.STATUS_PATH).body();
    assertThat(html).contains("<tr class=\"subscriber\" data-pool=\"ns.backend.generate\" data-subscriber=\""
        + "sub-lagging\">");

    // The sampler's lag series reaches the lag, then falls to 0 once the subscriber took everything.
    await("a max-lag sample ≥ " + lag, () -> max(history("maxLag")) >= lag);
    while (lagging.poll() != null) {
      // drained
    }
    await("sub-lagging caught up", () -> lagOf(engine.stats(), pool).get("sub-lagging").sequenceLag() == 0);
    await("the latest max-lag sample is 0", () -> last(history("maxLag")) == 0);
  }

  private double[] history(String series) {
    try {
      JsonNode h = statusJson().get("pools").get(0).get("history").get(series);
      double[] out = new double[h.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = h.get(i).asDouble();
      }
      return out;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static double max(double[] values) {
    double m = -1;
    for (double v : values) {
      m = Math.max(m, v);
    }
    return m;
  }

  private static double last(double[] values) {
    return values.length == 0 ? -1 : values[values.length - 1];
  }

  @Test
  void loadWindowsAndPluginConnectionsMatchTheEnginesCounters() throws Exception {
    SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane, requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    await("the pool's recovery queried the worker", () -> !engine.stats().pools().isEmpty()
        && engine.stats().pools().get(0).recovery().queries() > 0);
    engine.sync().get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    await("the status page's load watches are open", () -> engine.stats().streams().load().subscribers() == 1
        && engine.stats().streams().servingLoad().subscribers() == 1);

    RelayEngineStats a = engine.stats();
    JsonNode j = statusJson();
    RelayEngineStats b = engine.stats();
    JsonNode load = j.get("load");
    assertThat(load.get("windowsPublished").asLong()).isBetween(a.streams().loadUpdates(),
        b.streams().loadUpdates());
    assertThat(load.get("servingWindowsPublished").asLong()).isBetween(a.streams().servingLoadUpdates(),
        b.streams().servingLoadUpdates());
    assertThat(load.get("degradedCoveragePools").asInt()).isBetween(
        Math.min(a.streams().degradedLoadCoveragePools(), b.streams().degradedLoadCoveragePools()),
        Math.max(a.streams().degradedLoadCoveragePools(), b.streams().degradedLoadCoveragePools()));
    assertThat(load.get("catalogPools").asInt()).isEqualTo(engine.catalog().pools().size()).isEqualTo(1);
    assertThat(load.get("observations").asLong()).isBetween(a.loadObservations(), b.loadObservations());
    assertThat(load.get("rejected").asLong()).isBetween(a.loadRejected(), b.loadRejected());
    // the status page's own pool-load watch is the one load subscriber
    assertThat(load.get("subscribers").asInt()).isEqualTo(b.streams().load().subscribers()).isEqualTo(1);
    assertThat(load.get("servingSubscribers").asInt()).isEqualTo(b.streams().servingLoad().subscribers())
        .isEqualTo(1);
    assertThat(j.get("pools").get(0).get("load").get("streamClears").asLong())
        .isEqualTo(b.pools().get(0).load().streamClears());

    Map<String, JsonNode> rows = new java.util.LinkedHashMap<>();
    j.get("connections").forEach(c -> rows.put(c.get("plugin").asText() + "|" + c.get("scope").asText(), c));
    assertThat(rows).containsOnlyKeys("discovery|relay", "event plane|relay", "event plane|ns.backend.generate",
        "request plane|relay", "WAN gRPC|relay");
    JsonNode relayPlane = rows.get("event plane|relay");
    assertThat(relayPlane.get("state").asText()).isEqualTo("CONNECTED");
    assertThat(relayPlane.get("counters").get("disconnected").asLong())
        .isEqualTo(b.eventPlaneFaults(EventPlaneFaultKind.DISCONNECTED));
    assertThat(relayPlane.get("counters").get("newPublishers").asLong())
        .isBetween(a.eventPlaneFaults(EventPlaneFaultKind.NEW_PUBLISHER),
            b.eventPlaneFaults(EventPlaneFaultKind.NEW_PUBLISHER));
    assertThat(relayPlane.get("counters").get("decodeErrors").asLong()).isEqualTo(b.eventDecodeErrors());
    JsonNode requestPlane = rows.get("request plane|relay");
    assertThat(requestPlane.get("counters").get("queries").asLong())
        .isBetween(a.pools().get(0).recovery().queries(), b.pools().get(0).recovery().queries()).isPositive();
    JsonNode discoveryRow = rows.get("discovery|relay");
    assertThat(discoveryRow.get("counters").get("reconciles").asLong()).isBetween(a.reconciles(), b.reconciles());
    assertThat(discoveryRow.get("detail").asText()).isEqualTo("mode discovery");
    assertThat(rows.get("WAN gRPC|relay").get("state").asText()).isEqualTo("DISABLED");
    assertThat(get(SystemServer.STATUS_PATH).body()).contains("<tr class=\"connection\" data-plugin=\"event plane\">")
        .contains("<dd class=\"load-coverage\">");
  }

  @Test
  void anUndecodableEventShowsInRecentErrorsWithItsTime() throws Exception {
    SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane, requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    await("the status page saw the pool", () -> {
      try {
        return statusJson().get("pools").size() == 1;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(engine.stats().eventDecodeErrors()).isZero();
    long before = System.currentTimeMillis();
    plane.publisher(new EventScope.Endpoint(new DynamoEndpointId("ns", "backend", "generate")),
        EventTopics.KV_EVENTS, 99).publishRaw(new byte[] {(byte) 0xc1, 0x00, 0x7f});
    await("one decode error counted", () -> engine.stats().eventDecodeErrors() == 1);

    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    JsonNode entry = null;
    JsonNode recent = null;
    while (entry == null) {
      assertThat(System.nanoTime()).as("the decode error in recentErrors in time").isLessThan(deadline);
      recent = statusJson().get("recentErrors");
      for (JsonNode e : recent.get("entries")) {
        if (e.get("what").asText().equals("eventDecodeErrors")) {
          entry = e;
        }
      }
      Thread.sleep(20);
    }
    long after = System.currentTimeMillis();
    assertThat(entry.get("scope").asText()).isEqualTo("relay");
    assertThat(entry.get("increase").asLong()).isEqualTo(1);
    assertThat(entry.get("total").asLong()).isEqualTo(engine.stats().eventDecodeErrors()).isEqualTo(1);
    assertThat(entry.get("atMillis").asLong()).isBetween(before, after);
    assertThat(java.time.Instant.parse(entry.get("at").asText()).toEpochMilli())
        .isEqualTo(entry.get("atMillis").asLong());
    assertThat(entry.get("message").isNull()).isTrue();
    assertThat(recent.get("capacity").asInt()).isEqualTo(RecentErrors.CAPACITY);
    assertThat(recent.get("recorded").asLong()).isGreaterThanOrEqualTo(recent.get("entries").size());
    assertThat(recent.get("dropped").asLong()).isZero();
    assertThat(statusJson().get("errors").get("eventDecodeErrors").asLong()).isEqualTo(1);
    assertThat(get(SystemServer.STATUS_PATH).body()).contains("<td class=\"what t\">eventDecodeErrors</td>"
        + "<td class=\"increase\">+1</td>");
  }
}
