package dev.kvrelay.launcher.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ModelServingLoad;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The status page's load-window coverage ({@code loadWindows} in {@code /status.json}, the {@code pool-load} rows
 * of {@code /status}) against a real engine publishing windows every 100 ms, a simulated one-rank worker and
 * {@code kv_metrics} reports published on the in-memory plane: the page's window is compared with the window of
 * the same sequence taken from the test's own {@code watchPoolLoad} / {@code watchServingLoad} streams.
 */
class StatusPageLoadTest {
  private static final long DEADLINE_MS = 30_000;
  private static final long WINDOW_MS = 100;
  /** Windows kept for a subscriber: 102 s of windows, so the test's own readers (drained on demand) never lag. */
  private static final long RING = 1024;
  private static final long WORKER_ID = 7;
  private static final String ENDPOINT = "ns.backend.generate";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> LOCAL = Map.of("DYN_SYSTEM_PORT", "0", "DYN_SYSTEM_HOST", "127.0.0.1");

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final InMemoryDiscovery discovery = new InMemoryDiscovery();
  private final InMemoryEventPlane plane = InMemoryEventPlane.create();
  private final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  private RelayEngine engine;
  private SystemServer server;
  private Recorder<KvPoolLoadUpdate> reader;
  private Recorder<ServingLoadUpdate> servingReader;

  @BeforeEach
  void start() throws Exception {
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-a").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:5561").loadWindowMs(WINDOW_MS)
        .loadFanoutCapacity(RING).build();
    engine = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).requestPlane(requests)
        .poolThreads(2).build();
    // Opened before the worker starts: every window listing the pool is published after these subscribed.
    reader = new Recorder<>(WireSources.of(engine).watchPoolLoad("test-reader"), KvPoolLoadUpdate::windowSequence);
    servingReader = new Recorder<>(WireSources.of(engine).watchServingLoad("test-serving-reader"), ServingLoadUpdate::windowSequence);
    server = SystemServer.start(SystemServerSettings.fromEnvironment(LOCAL), engine,
        RelayProcessInfo.discovery(Map.of(), () -> WanStatus.DISABLED));
    SystemTestWorkers.start("ns/backend/generate", WORKER_ID, "llama", discovery, plane, requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
  }

  @AfterEach
  void stop() throws Exception {
    reader.stream.close();
    servingReader.stream.close();
    server.close();
    engine.close();
    requests.close();
    plane.close();
    discovery.close();
  }

  /** Not thread-safe (the test thread): the windows of one stream, by sequence. */
  private static final class Recorder<T> {
    final RelayStream<T> stream;
    final ToLongFunction<T> sequence;
    final Map<Long, T> windows = new HashMap<>();

    Recorder(RelayStream<T> stream, ToLongFunction<T> sequence) {
      this.stream = stream;
      this.sequence = sequence;
    }

    /** The window with {@code seq}, waiting for it. */
    T get(long seq) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
      while (!windows.containsKey(seq)) {
        assertThat(System.nanoTime()).as("window " + seq + " on the test's own stream in time").isLessThan(deadline);
        T w = stream.poll(50, TimeUnit.MILLISECONDS);
        if (w != null) {
          windows.put(sequence.applyAsLong(w), w);
        }
      }
      return windows.get(seq);
    }
  }

  private interface Check {
    boolean test() throws Exception;
  }

  private static void await(String what, Check condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (!condition.test()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not in time: " + what);
      }
      Thread.sleep(10);
    }
  }

  private JsonNode statusJson() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + SystemServer.STATUS_JSON_PATH)).timeout(Duration.ofSeconds(20)).GET().build();
    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private String statusHtml() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + SystemServer.STATUS_PATH)).timeout(Duration.ofSeconds(20)).GET().build();
    return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The page's pool-load window once its row for the pool passes {@code until}. */
  private JsonNode windowWhere(String what, Predicate<JsonNode> until) throws Exception {
    JsonNode[] found = new JsonNode[1];
    await(what, () -> {
      JsonNode w = statusJson().get("loadWindows").get("pool").get("window");
      if (w.isNull() || w.get("pools").size() != 1 || !until.test(w.get("pools").get(0))) {
        return false;
      }
      found[0] = w;
      return true;
    });
    return found[0];
  }

  /** Publishes one worker-origin kv_metrics report of {@code (WORKER_ID, rank)}. */
  private void reportLoad(long publisherId, int rank, long kvUsedBlocks) {
    plane.publisher(new EventScope.Endpoint(new DynamoEndpointId("ns", "backend", "generate")),
        EventTopics.KV_METRICS, publisherId).publish(new ActiveLoad(WORKER_ID, rank, OptionalLong.empty(),
            OptionalLong.empty(), null, OptionalLong.of(kvUsedBlocks)));
  }

  /** The page's row equals the entry of the test's own window with the same sequence, and shows {@code coverage}. */
  private KvPoolLoadEntry assertSameAsOwnWindow(JsonNode window, String coverage) throws Exception {
    long seq = Long.parseUnsignedLong(window.get("windowSequence").asText());
    KvPoolLoadUpdate own = reader.get(seq);
    assertThat(own.pools()).hasSize(1);
    KvPoolLoadEntry e = own.pools().get(0);
    KvPoolDescriptor pool = engine.catalog().pools().get(0);
    assertThat(e.producer()).isEqualTo(pool.producer());
    JsonNode row = window.get("pools").get(0);
    assertThat(row.get("endpoint").asText()).isEqualTo(ENDPOINT);
    assertThat(row.get("producerIncarnation").asText()).isEqualTo(Long.toUnsignedString(
        e.producer().producerIncarnation()));
    assertThat(row.get("generation").asText()).isEqualTo(Long.toUnsignedString(e.producer().layoutGeneration()));
    assertThat(row.get("observedRanks").asLong()).isEqualTo(e.kvObservedRanks());
    assertThat(row.get("expectedRanks").asLong()).isEqualTo(e.kvExpectedRanks());
    assertThat(row.get("kvUsedBlocks").asText()).isEqualTo(Long.toUnsignedString(e.kvUsedBlocks()));
    assertThat(row.get("totalKvBlocks").asText()).isEqualTo(Long.toUnsignedString(e.totalKvBlocks()));
    assertThat(row.get("coverage").asText()).isEqualTo(coverage);
    assertThat(window.get("observedMs").asLong()).isEqualTo(own.observedMs());
    assertThat(window.get("windowMs").asLong()).isEqualTo(own.windowMs()).isEqualTo(WINDOW_MS);
    assertThat(window.get("receivedAtMs").asLong()).isGreaterThanOrEqualTo(own.observedMs());
    assertThat(window.get("ageMs").asLong()).isNotNegative();
    return e;
  }

  @Test
  void fullCoverageRowMatchesTheWindowOfTheSameSequenceOnTheTestsOwnStream() throws Exception {
    windowWhere("the page lists the pool with its declared rank", r -> r.get("expectedRanks").asLong() == 1);
    reportLoad(901, 0, 123);
    JsonNode window = windowWhere("the page shows the reported 123 blocks",
        r -> r.get("kvUsedBlocks").asText().equals("123"));
    KvPoolLoadEntry e = assertSameAsOwnWindow(window, StatusLoadWindows.FULL);
    assertThat(e.kvObservedRanks()).isEqualTo(1);
    assertThat(e.kvExpectedRanks()).isEqualTo(1);
    assertThat(e.totalKvBlocks()).isEqualTo(4096);

    // The watch is a real subscriber, counted with the test's own reader.
    JsonNode j = statusJson();
    assertThat(j.get("load").get("subscribers").asInt()).isEqualTo(2)
        .isEqualTo(engine.stats().streams().load().subscribers());
    JsonNode watch = j.get("loadWindows").get("pool").get("watch");
    assertThat(watch.get("subscriberId").asText()).isEqualTo(StatusSampler.WATCH_ID);
    assertThat(watch.get("open").asBoolean()).isTrue();
    assertThat(watch.get("opened").asLong()).isEqualTo(1);
    assertThat(watch.get("ended").asLong()).isZero();
    assertThat(watch.get("windows").asLong()).isPositive();

    // The serving-load window likewise: its pool and model rows equal the test's own window of that sequence.
    JsonNode serving = null;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (serving == null || serving.isNull() || serving.get("pools").size() != 1
        || serving.get("models").size() != 1) {
      assertThat(System.nanoTime()).as("a serving window with the pool and the model in time").isLessThan(deadline);
      serving = statusJson().get("loadWindows").get("serving").get("window");
    }
    ServingLoadUpdate own = servingReader.get(Long.parseUnsignedLong(serving.get("windowSequence").asText()));
    PoolServingLoad ownPool = own.pools().get(0);
    JsonNode pool = serving.get("pools").get(0);
    assertThat(pool.get("endpoint").asText()).isEqualTo(ENDPOINT);
    assertThat(pool.get("status").asText()).isEqualTo(ownPool.load().status().name());
    assertThat(pool.get("liveWorkers").isNull()).isEqualTo(ownPool.deployment().liveWorkers().isEmpty());
    ModelServingLoad ownModel = own.models().get(0);
    JsonNode model = serving.get("models").get(0);
    assertThat(model.get("namespace").asText()).isEqualTo(ownModel.namespace()).isEqualTo("ns");
    assertThat(model.get("model").asText()).isEqualTo(ownModel.canonicalModelId()).isEqualTo("llama");
    assertThat(model.get("status").asText()).isEqualTo(ownModel.load().status().name());
    assertThat(model.get("servingPools").asInt()).isEqualTo(ownModel.deployment().servingPools().size())
        .isEqualTo(1);
    assertThat(model.get("expectedFrontends").asLong()).isEqualTo(ownModel.deployment().expectedFrontends());

    String html = statusHtml();
    assertThat(html).contains("<tr class=\"pool-load\" data-endpoint=\"" + ENDPOINT + "\"><td class=\"endpoint t\">"
        + ENDPOINT + "</td><td class=\"coverage t ok\">FULL</td><td class=\"ranks\">1 / 1</td>"
        + "<td class=\"kv-blocks\">123 / 4096</td>")
        .contains("<tr class=\"serving-model\" data-model=\"llama\">")
        .contains("subscriber id <b>" + StatusSampler.WATCH_ID + "</b>");
  }

  @Test
  void aMissingRankShowsDegradedCoverageEvenAfterAReportFromAnUndeclaredRank() throws Exception {
    JsonNode first = windowWhere("the page lists the pool with its declared rank",
        r -> r.get("expectedRanks").asLong() == 1);
    KvPoolLoadEntry before = assertSameAsOwnWindow(first, StatusLoadWindows.DEGRADED);
    assertThat(before.kvObservedRanks()).isZero();
    // The worker declares rank 0 only; a report for rank 1 is counted as unknown and covers nothing.
    reportLoad(902, 1, 55);
    await("the unknown-rank report counted", () -> engine.stats().pools().get(0).load().unknownRank() == 1);
    long counted = Long.parseUnsignedLong(statusJson().get("loadWindows").get("pool").get("window")
        .get("windowSequence").asText());
    JsonNode[] after = new JsonNode[1];
    await("a window built after the unknown-rank report was counted", () -> {
      after[0] = statusJson().get("loadWindows").get("pool").get("window");
      return Long.parseUnsignedLong(after[0].get("windowSequence").asText()) > counted;
    });
    JsonNode window = after[0];
    KvPoolLoadEntry e = assertSameAsOwnWindow(window, StatusLoadWindows.DEGRADED);
    assertThat(e.kvObservedRanks()).isZero();
    assertThat(e.kvExpectedRanks()).isEqualTo(1);
    assertThat(e.kvUsedBlocks()).isZero();
    JsonNode j = statusJson();
    assertThat(j.get("pools").get(0).get("load").get("unknownRank").asLong()).isEqualTo(1);
    assertThat(statusHtml()).contains("<td class=\"coverage t bad\">DEGRADED</td><td class=\"ranks\">0 / 1</td>");

    // Rank 0 reports: the next windows are full.
    reportLoad(903, 0, 9);
    assertSameAsOwnWindow(windowWhere("the page shows rank 0 observed", r -> r.get("observedRanks").asLong() == 1),
        StatusLoadWindows.FULL);
  }

  @Test
  void theWatchCountsTheEndOfItsStreamAndTheRefusedReopen() throws Exception {
    LoadWindowWatch<KvPoolLoadUpdate> watch = new LoadWindowWatch<>("watch-under-test", WireSources.of(engine)::watchPoolLoad);
    watch.poll(1);
    assertThat(watch.state().opened()).isEqualTo(1);
    assertThat(watch.state().open()).isTrue();
    await("the watch took a window", () -> {
      watch.poll(2);
      return watch.latest() != null;
    });
    // stamped by the poll that took it: the first (the current window comes at once) or a later one
    assertThat(watch.latest().receivedAtMillis()).isIn(1L, 2L);
    assertThat(watch.state().windows()).isPositive();
    engine.close(); // ends every load stream with PUBLICATION_UNAVAILABLE; opening is refused after it
    await("the stream's end counted", () -> {
      watch.poll(3);
      return watch.state().ended() == 1;
    });
    assertThat(watch.state().lastEnd()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE.name());
    assertThat(watch.state().open()).isFalse();
    watch.poll(4);
    assertThat(watch.state().openFailures()).isEqualTo(1);
    assertThat(watch.state().opened()).isEqualTo(1);
    assertThat(watch.latest()).as("the last window is kept").isNotNull();
    watch.close();
    watch.poll(5);
    assertThat(watch.state().openFailures()).as("no reopen after close").isEqualTo(1);
  }
}
