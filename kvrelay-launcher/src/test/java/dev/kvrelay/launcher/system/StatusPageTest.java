package dev.kvrelay.launcher.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.PoolStats;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.PoolFrame;
import dev.kvrelay.engine.wan.RelayStream;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
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
        .bind("127.0.0.1:5561").build();
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
    RelayStream<PoolFrame> stream = engine.subscribePool(pool.poolId(), pool.producer(), "sub-pool")
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
}
