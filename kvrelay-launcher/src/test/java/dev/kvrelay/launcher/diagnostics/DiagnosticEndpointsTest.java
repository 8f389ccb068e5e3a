package dev.kvrelay.launcher.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.engine.DiagnosticsFixture;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.launcher.health.HealthSource;
import dev.kvrelay.launcher.health.RelayHealth;
import dev.kvrelay.launcher.health.SourcesStatus;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.requestplane.tcp.TcpRequestPlaneConfig;
import dev.kvrelay.requestplane.tcp.TcpRequestServer;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.Transport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not thread-safe: confined to the JUnit thread. The diagnostic endpoints of a running engine (in-memory discovery
 * and event plane, a simulated worker) served on a real TCP request server and called by an independent Python
 * caller ({@code diag_caller.py}, written from plugins-wire §1 and producer.md §7.5), which finds them through the
 * records advertised in discovery. Answers are checked against the engine's own state after known events.
 */
class DiagnosticEndpointsTest {
  static final String NS = "relay";
  static final String SERVING = "ns/backend/generate";

  @TempDir Path dir;
  DiagnosticsFixture fixture;
  TcpRequestServer server;
  DiagnosticEndpoints diag;
  DiscoveryRegistrar registrar;

  @BeforeEach
  void start() throws Exception {
    fixture = new DiagnosticsFixture("dc-a");
    server = TcpRequestServer.start(TcpRequestServer.Settings.of(TcpRequestPlaneConfig.loopback(), 0));
    registrar = fixture.discovery().registrar();
    diag = DiagnosticEndpoints.start(fixture.engine(), server, registrar, NS);
  }

  @AfterEach
  void stop() {
    if (diag != null) {
      diag.close();
    }
    server.close();
    fixture.close();
  }

  /** The advertised {@code {"tcp": …}} transport of diagnostic endpoint {@code name}, read back from discovery. */
  String transport(String name) {
    List<EndpointRecord> found = advertised().stream().filter(r -> r.endpoint().endpoint().equals(name)).toList();
    assertThat(found).as("advertised %s", name).hasSize(1);
    return ((Transport.Tcp) found.get(0).transport()).address();
  }

  List<EndpointRecord> advertised() {
    return fixture.discovery().records().stream().filter(r -> r instanceof EndpointRecord)
        .map(r -> (EndpointRecord) r).filter(r -> r.endpoint().component().startsWith("kv_dc_relay_")).toList();
  }

  /** A worker with three cached prompts (one leaf evicted), its pool, and the words once published exactly. */
  KvPoolDescriptor workerWithBlocks() throws Exception {
    fixture.startWorker(SERVING, 11, "llama");
    for (int p = 0; p < 3; p++) {
      int[] tokens = new int[16 * 4];
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = 1000 * (p + 1) + i;
      }
      fixture.cache(tokens);
    }
    assertThat(fixture.evict(1)).isEqualTo(1);
    assertThat(fixture.live()).hasSize(11);
    return fixture.awaitPool(SERVING);
  }

  static JsonObject obj(JsonValue v, String member) {
    return (JsonObject) ((JsonObject) v).get(member);
  }

  static long u64(JsonValue v, String member) throws Exception {
    return ((JsonNumber) ((JsonObject) v).get(member)).asUnsignedLong();
  }

  static JsonValue item(JsonObject result) throws Exception {
    assertThat(result.get("ack")).as("ack of %s", result).isEqualTo(new JsonString(""));
    assertThat(result.get("framing_ok")).as("framing of %s", result).isEqualTo(Json.parse("true"));
    assertThat(result.get("prologue")).as("prologue of %s", result).isEqualTo(Json.parse("{\"error\":null}"));
    JsonArray items = (JsonArray) result.get("items");
    assertThat(items.size()).isEqualTo(1);
    return items.get(0);
  }

  static String error(JsonObject result) throws Exception {
    assertThat(result.get("ack")).as("ack of %s", result).isEqualTo(new JsonString(""));
    assertThat(result.get("framing_ok")).as("framing of %s", result).isEqualTo(Json.parse("true"));
    assertThat(((JsonArray) result.get("items")).size()).isZero();
    return ((JsonString) obj(result, "prologue").get("error")).value();
  }

  static String ack(JsonObject result) {
    return ((JsonString) result.get("ack")).value();
  }

  static long[] buckets(JsonValue snapshot) throws Exception {
    JsonArray a = (JsonArray) ((JsonObject) snapshot).get("buckets");
    long[] w = new long[a.size()];
    for (int i = 0; i < w.length; i++) {
      w[i] = ((JsonNumber) a.get(i)).asUnsignedLong();
    }
    return w;
  }

  @Test
  void theComponentNameIsTheSha256OfTheDcIdAndTheThreeEndpointsAreAdvertisedWhereTheyAreServed() throws Exception {
    String python = PythonCaller.run(dir, "component", "dc-a").get(0);
    assertThat(python).isEqualTo("COMPONENT kv_dc_relay_cfe22161303982bc925df4cbdf6a2e27"); // producer.md §7.5 example
    String component = python.substring("COMPONENT ".length());
    assertThat(diag.component().component()).isEqualTo(component);
    List<EndpointRecord> records = advertised();
    assertThat(records).containsExactlyInAnyOrderElementsOf(diag.records());
    assertThat(records.stream().map(r -> r.endpoint().path()).toList()).containsExactlyInAnyOrder(
        NS + "/" + component + "/health", NS + "/" + component + "/stats", NS + "/" + component + "/snapshot");
    for (EndpointRecord r : records) {
      assertThat(r.instanceId()).isEqualTo(registrar.instanceId());
      assertThat(r.requestPlaneCodec()).isEqualTo("json");
      // plugins-wire §3, newest layout: ip:port/{iid:x}/{ns}/{component}/{endpoint}
      assertThat(((Transport.Tcp) r.transport()).address()).isEqualTo(
          server.hostPort() + "/" + Long.toHexString(registrar.instanceId()) + "/" + NS + "/" + component + "/" + r.endpoint().endpoint());
    }
    JsonValue health = item(PythonCaller.call(dir, transport("health"), "{\"text\":\"health\"}").get(0));
    assertThat(((JsonObject) health).get("healthy")).isEqualTo(Json.parse("true"));
  }

  @Test
  void aPythonCallerReadsHealthStatsAndSnapshotsThatMatchTheEnginesState() throws Exception {
    KvPoolDescriptor d = workerWithBlocks();
    long[] words = fixture.awaitExact(d);
    List<JsonObject> r = PythonCaller.call(dir,
        transport("health"), "{\"text\":\"health\"}",
        transport("stats"), "{}",
        transport("snapshot"), "{\"serving_endpoint\":\"ns.backend.generate\"}",
        transport("snapshot"), "{\"serving_endpoint\":\"ns/backend/generate\"}");
    assertThat(r).hasSize(4);

    assertThat(item(r.get(0))).isEqualTo(Json.parse("{\"sources\":{\"desiredRevision\":null,\"appliedRevision\":null,"
        + "\"count\":0,\"lastError\":null},\"healthy\":true,\"shutting_down\":false,\"host_last_error\":null,"
        + "\"endpoint_count\":1,\"active_endpoint_count\":1,\"fenced_endpoint_count\":0,\"wan_enabled\":false,"
        + "\"wan_serving\":false,\"wan_bound_address\":null,\"wan_last_error\":null}"));

    JsonValue stats = item(r.get(1));
    JsonObject identity = obj(stats, "identity");
    assertThat(identity.get("dc_id")).isEqualTo(new JsonString("dc-a"));
    assertThat(u64(identity, "drt_instance_id")).isEqualTo(fixture.engine().identity().drtInstanceId());
    assertThat(u64(identity, "relay_incarnation")).isEqualTo(fixture.engine().identity().relayIncarnation());
    JsonArray endpoints = (JsonArray) ((JsonObject) stats).get("endpoints");
    assertThat(endpoints.size()).isEqualTo(1);
    JsonObject ep = (JsonObject) endpoints.get(0);
    assertThat(ep.get("serving_endpoint")).isEqualTo(new JsonString("ns.backend.generate"));
    assertThat(ep.get("lifecycle")).isEqualTo(new JsonString("active"));
    assertThat(u64(ep, "layout_generation")).isEqualTo(d.producer().layoutGeneration());
    assertThat(ep.get("models")).isEqualTo(Json.parse("[\"llama\"]"));
    assertThat(ep.get("roles")).isEqualTo(Json.parse("[\"aggregated\"]"));
    assertThat(obj(ep, "cache_domain")).isEqualTo(Json.parse("{\"kv_block_size\":16,\"event_hash_format\":1}"));
    JsonObject aggregation = obj(ep, "aggregation");
    assertThat(u64(aggregation, "unique_block_count")).isEqualTo(11);
    assertThat(u64(aggregation, "contribution_count")).isEqualTo(11);
    assertThat(u64(aggregation, "member_count")).isEqualTo(1);
    assertThat(u64(aggregation, "occupied_slot_count")).isEqualTo(11);
    assertThat(u64(aggregation, "capacity_failures")).isZero();
    assertThat(u64(obj(ep, "publication"), "pending_events")).isZero();
    assertThat(u64(obj(ep, "publication"), "reset_count")).isZero();
    // the raw counter records are there too (the worker cached before the pool started: recovery restored it)
    assertThat(u64(obj(ep, "producer"), "unique_canonical_hashes")).isEqualTo(11);
    assertThat(u64(obj(ep, "producer"), "resident_count")).isEqualTo(11);
    assertThat(obj(ep, "actor").get("state")).isEqualTo(new JsonString("running"));
    assertThat(obj(ep, "recovery").has("query_failures")).isTrue();
    RelayEngineStats engineStats = fixture.engine().stats();
    assertThat(u64(obj(stats, "engine"), "pool_starts")).isEqualTo(engineStats.poolStarts());
    assertThat(u64(obj(obj(stats, "engine"), "hubs"), "initialized_hubs")).isPositive();

    CkfFormat format = d.producer().ckfFormat();
    for (JsonObject snapshotResult : List.of(r.get(2), r.get(3))) {
      JsonValue snapshot = item(snapshotResult);
      JsonObject s = (JsonObject) snapshot;
      assertThat(s.get("serving_endpoint")).isEqualTo(new JsonString("ns.backend.generate")); // displayed dotted
      assertThat(s.get("dc_id")).isEqualTo(new JsonString("dc-a"));
      assertThat(u64(s, "drt_instance_id")).isEqualTo(fixture.engine().identity().drtInstanceId());
      assertThat(u64(s, "relay_incarnation")).isEqualTo(fixture.engine().identity().relayIncarnation());
      assertThat(u64(s, "layout_generation")).isEqualTo(d.producer().layoutGeneration());
      assertThat(u64(s, "format_version")).isEqualTo(format.formatVersion());
      assertThat(u64(s, "seed")).isEqualTo(format.seed());
      assertThat(u64(s, "bucket_count")).isEqualTo(format.bucketCount());
      assertThat(u64(s, "fingerprint_bits")).isEqualTo(16);
      assertThat(u64(s, "slots_per_bucket")).isEqualTo(4);
      assertThat(u64(s, "unique_block_count")).isEqualTo(11);
      assertThat(u64(s, "member_count")).isEqualTo(1);
      assertThat(u64(s, "sequence")).isEqualTo(u64(s, "counts_sequence")); // quiescent: nothing published between
      long[] got = buckets(snapshot);
      assertThat(got).hasSize(format.bucketCount()).isEqualTo(words);
      DiagnosticsFixture.assertHolds(got, format, fixture.live());
    }
    assertThat(diag.stats().answered()).isEqualTo(Map.of("health", 1L, "stats", 1L, "snapshot", 2L));
    assertThat(diag.stats().refused().values()).containsOnly(0L);
  }

  @Test
  void badRequestsGetTypedErrorsAndChangeNothing() throws Exception {
    KvPoolDescriptor d = workerWithBlocks();
    long[] words = fixture.awaitExact(d);
    long catalogRevision = fixture.engine().catalog().revision();
    long admitted = fixture.engine().stats().hubs().subscribersAdmitted();
    String health = transport("health");
    String unknownPath = health.substring(0, health.length() - "health".length()) + "metrics";
    List<JsonObject> r = PythonCaller.call(dir,
        transport("snapshot"), "{}",
        transport("snapshot"), "{\"serving_endpoint\":\"\"}",
        transport("snapshot"), "{\"serving_endpoint\":null}",
        transport("snapshot"), "{\"serving_endpoint\":\"ns.backend.nope\"}",
        transport("snapshot"), "{\"serving_endpoint\":7}",
        transport("snapshot"), "[1,2]",
        transport("snapshot"), "{\"serving_endpoint\":\"ns/backend\"}",
        transport("snapshot"), "!raw not json",
        health, "!raw {\"text\":",
        unknownPath, "{\"text\":\"health\"}");
    assertThat(r).hasSize(10);
    assertThat(error(r.get(0))).isEqualTo("snapshot requests require serving_endpoint");
    assertThat(error(r.get(1))).isEqualTo("snapshot requests require serving_endpoint");
    assertThat(error(r.get(2))).isEqualTo("snapshot requests require serving_endpoint");
    assertThat(error(r.get(3))).isEqualTo("unknown or inactive serving endpoint ns.backend.nope");
    assertThat(error(r.get(4))).isEqualTo("serving_endpoint must be a string \"ns.comp.ep\", got number");
    assertThat(error(r.get(5))).isEqualTo("snapshot request must be a JSON object, got array");
    assertThat(error(r.get(6))).startsWith("serving_endpoint 'ns/backend' is not ns.comp.ep or ns/comp/ep: ");
    assertThat(ack(r.get(7))).startsWith("Decode error: ");
    assertThat(ack(r.get(8))).startsWith("Decode error: ");
    String path = unknownPath.substring(unknownPath.indexOf('/') + 1);
    assertThat(ack(r.get(9))).isEqualTo("Server unavailable: unknown endpoint " + path);

    assertThat(diag.stats().refused()).containsEntry(DiagnosticRequestException.Kind.MISSING_SERVING_ENDPOINT, 3L)
        .containsEntry(DiagnosticRequestException.Kind.UNKNOWN_ENDPOINT, 1L)
        .containsEntry(DiagnosticRequestException.Kind.MALFORMED_REQUEST, 3L);
    assertThat(diag.stats().answered().values()).containsOnly(0L);
    // nothing changed: no pool subscription was opened, the catalog and the filter are as before
    assertThat(fixture.engine().stats().hubs().subscribersAdmitted()).isEqualTo(admitted);
    assertThat(fixture.engine().catalog().revision()).isEqualTo(catalogRevision);
    assertThat(fixture.producerWords(d)).isEqualTo(words);
    // and the endpoints still answer
    assertThat(((JsonObject) item(PythonCaller.call(dir, transport("health"), "{}").get(0))).get("endpoint_count"))
        .isEqualTo(Json.parse("1"));
  }

  @Test
  void aSnapshotLargerThanTheRequestPlanesMessageLimitIsRefused() throws Exception {
    diag.close();
    server.close();
    server = TcpRequestServer.start(new TcpRequestServer.Settings(TcpRequestPlaneConfig.loopback().responseHost(), 0,
        4096, Duration.ofSeconds(5), 2, 8));
    diag = DiagnosticEndpoints.start(fixture.engine(), server, registrar, NS);
    KvPoolDescriptor d = workerWithBlocks();
    List<JsonObject> r = PythonCaller.call(dir, transport("snapshot"), "{\"serving_endpoint\":\"ns.backend.generate\"}");
    assertThat(error(r.get(0))).startsWith("snapshot of ns.backend.generate (" + d.producer().ckfFormat().bucketCount()
        + " buckets, up to ").endsWith("bytes) exceeds the request plane's message limit of 4032 bytes");
    assertThat(diag.stats().refused()).containsEntry(DiagnosticRequestException.Kind.TOO_LARGE, 1L);
  }

  @Test
  void closingWithdrawsTheRecordsAndStopsServing() throws Exception {
    String health = transport("health");
    diag.close();
    assertThat(advertised()).isEmpty();
    List<JsonObject> r = PythonCaller.call(dir, health, "{\"text\":\"health\"}");
    assertThat(ack(r.get(0))).isEqualTo("Server unavailable: unknown endpoint " + health.substring(health.indexOf('/') + 1));
    diag.close(); // idempotent
  }

  @Test
  void healthReportsAHostFailureAndAShutdown() throws Exception {
    HealthSource source = HealthSource.ofEngine(fixture.engine(), () -> SourcesStatus.discovery(0), WanStatus::disabled);
    assertThat(source.health().healthy()).isTrue();
    dev.kvrelay.engine.EngineFaults.failHost(fixture.engine(), new IllegalStateException("load window publisher failed"));
    RelayHealth failed = source.health();
    assertThat(failed.hostLastError()).isEqualTo("load window publisher failed");
    assertThat(failed.healthy()).isFalse();
    assertThat(HealthDocument.of(failed).get("healthy")).isEqualTo(Json.parse("false"));
    assertThat(HealthDocument.of(failed).get("host_last_error")).isEqualTo(new JsonString("load window publisher failed"));

    try (DiagnosticsFixture other = new DiagnosticsFixture("us-west")) {
      HealthSource s2 = HealthSource.ofEngine(other.engine(), () -> SourcesStatus.discovery(2),
          () -> WanStatus.serving("127.0.0.1:5561"));
      assertThat(HealthDocument.of(s2.health()).get("wan_bound_address")).isEqualTo(new JsonString("127.0.0.1:5561"));
      assertThat(s2.health().healthy()).isTrue();
      other.engine().close();
      RelayHealth closed = s2.health();
      assertThat(closed.shuttingDown()).isTrue();
      assertThat(closed.hostLastError()).isNull();
      assertThat(closed.healthy()).isFalse();
      assertThat(HealthDocument.of(closed).get("host_last_error")).isEqualTo(JsonNull.INSTANCE);
    }
  }

  @Test
  void aDottedNameOfTwoPoolsIsAmbiguousAndThePathFormPicksOne() throws Exception {
    // producer.md §7.5 decision: display ns.comp.ep, parse both forms; a dotted name is not unique
    fixture.startWorker("a.b/c/d", 21, "m1");
    fixture.awaitPool("a.b/c/d");
    fixture.startWorker("a/b.c/d", 22, "m2");
    KvPoolDescriptor second = fixture.awaitPool("a/b.c/d");
    List<JsonObject> r = PythonCaller.call(dir,
        transport("snapshot"), "{\"serving_endpoint\":\"a.b.c.d\"}",
        transport("snapshot"), "{\"serving_endpoint\":\"a/b.c/d\"}");
    assertThat(error(r.get(0))).isEqualTo("serving endpoint a.b.c.d names 2 pools; use the path form ns/comp/ep");
    JsonObject s = (JsonObject) item(r.get(1));
    assertThat(s.get("serving_endpoint")).isEqualTo(new JsonString("a.b.c.d"));
    assertThat(u64(s, "layout_generation")).isEqualTo(second.producer().layoutGeneration());
    assertThat(buckets(s)).hasSize(second.producer().ckfFormat().bucketCount()).containsOnly(0L);
    assertThat(diag.stats().refused()).containsEntry(DiagnosticRequestException.Kind.AMBIGUOUS_ENDPOINT, 1L);
  }

  @Test
  void theHealthRuleOfProducerSection75() {
    SourcesStatus src = SourcesStatus.discovery(0);
    assertThat(new RelayHealth(src, false, null, 2, 2, 0, WanStatus.disabled()).healthy()).isTrue();
    assertThat(new RelayHealth(src, true, null, 2, 2, 0, WanStatus.disabled()).healthy()).isFalse();
    assertThat(new RelayHealth(src, false, "boom", 2, 2, 0, WanStatus.disabled()).healthy()).isFalse();
    assertThat(new RelayHealth(src, false, null, 2, 1, 1, WanStatus.disabled()).healthy()).isFalse();
    assertThat(new RelayHealth(src, false, null, 0, 0, 0, new WanStatus(true, false, null, null)).healthy()).isFalse();
    assertThat(new RelayHealth(src, false, null, 0, 0, 0, new WanStatus(true, true, "h:1", "bind lost")).healthy())
        .isFalse();
    assertThat(new RelayHealth(src, false, null, 0, 0, 0, WanStatus.serving("h:1")).healthy()).isTrue();
  }

  @Test
  void everyExampleComponentHashOfTheSpecMatchesPythonsHashlib() throws Exception {
    Map<String, String> spec = Map.of("dc-a", "cfe22161303982bc925df4cbdf6a2e27",
        "us-west", "568efa6a0ce59a3d6e78a00a6c0ac73d", "test-dc", "8436598db4a4344bfa0424bb83445724",
        "dc-ü-东京", "");
    for (Map.Entry<String, String> e : spec.entrySet()) {
      String python = PythonCaller.run(dir, "component", e.getKey()).get(0).substring("COMPONENT ".length());
      assertThat(DiagnosticComponent.componentName(e.getKey())).as(e.getKey()).isEqualTo(python);
      if (!e.getValue().isEmpty()) {
        assertThat(python).isEqualTo("kv_dc_relay_" + e.getValue());
      }
    }
    assertThat(spec.keySet().stream().map(DiagnosticComponent::componentName).collect(Collectors.toSet())).hasSize(4);
  }
}
