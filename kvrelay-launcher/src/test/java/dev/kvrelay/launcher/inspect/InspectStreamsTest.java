package dev.kvrelay.launcher.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.wire.WireCodec;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.inspect.InspectTestRelay.Recorder;
import dev.kvrelay.launcher.inspect.InspectTestRelay.Run;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The metadata verbs' streams against a real relay publishing load windows every 100 ms: {@code load} and
 * {@code serving-load} print the relay's own window of that sequence field for field (the printed proto3 JSON parsed
 * back with {@link JsonFormat}, which refuses unknown field names, and compared with the engine's in-process window
 * through the server's codec); {@code --count} and {@code --seconds} bound {@code --watch}; {@code --output table}
 * prints the header and one row group per pool, readiness entry or load entry.
 */
@Timeout(120)
class InspectStreamsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long WINDOW_MS = 100;

  private InspectTestRelay relay;
  private RelayEngine engine;

  @BeforeEach
  void start() throws Exception {
    relay = InspectTestRelay.start(b -> b.loadWindowMs(WINDOW_MS).catalogHeartbeatIntervalMs(600_000));
    engine = relay.engine;
  }

  @AfterEach
  void stop() throws Exception {
    relay.close();
  }

  /** The root JSON values of {@code out}, in order. */
  private static List<JsonNode> documents(String out) throws Exception {
    List<JsonNode> docs = new ArrayList<>();
    JSON.readerFor(JsonNode.class).readValues(out).forEachRemaining(n -> docs.add((JsonNode) n));
    return docs;
  }

  @SuppressWarnings("unchecked")
  private static <M extends Message> M parse(JsonNode doc, Supplier<? extends Message.Builder> builder)
      throws Exception {
    Message.Builder b = builder.get();
    JsonFormat.parser().merge(doc.toString(), b);
    return (M) b.build();
  }

  @Test
  void loadPrintsOneWindowExactlyAsTheRelayPublishedIt() throws Exception {
    try (Recorder<KvPoolLoadUpdate> own = new Recorder<>(WireSources.of(engine).watchPoolLoad("own-load"),
        KvPoolLoadUpdate::windowSequence)) {
      own.awaitAny("a window listing the pool", w -> w.pools().size() == 1);
      Run r = InspectTestRelay.run("load", "--target", relay.target());
      assertThat(r.status()).as(r.err()).isZero();
      List<JsonNode> docs = documents(r.out());
      assertThat(docs).as("one update without --watch").hasSize(1);
      JsonNode w = docs.get(0);
      // grpcurl's shape: camelCase, u64 as decimal strings, the marker as a number.
      assertThat(w.get("windowMs").asText()).isEqualTo(Long.toString(WINDOW_MS));
      assertThat(w.get("contractMarker").asLong()).isEqualTo(1263948337L);
      KvPoolDescriptor pool = engine.catalog().pools().get(0);
      assertThat(w.get("pools")).hasSize(1);
      assertThat(w.get("pools").get(0).get("producer").get("producerIncarnation").asText())
          .isEqualTo(Long.toUnsignedString(pool.producer().producerIncarnation()));
      dev.kvrelay.grpc.proto.KvPoolLoadUpdate printed = parse(w, dev.kvrelay.grpc.proto.KvPoolLoadUpdate::newBuilder);
      KvPoolLoadUpdate window = own.get(printed.getWindowSequence());
      assertThat(printed).isEqualTo(WireCodec.toProto(engine.identity(), window));
    }
  }

  @Test
  void servingLoadPrintsOneWindowExactlyAsTheRelayPublishedIt() throws Exception {
    try (Recorder<ServingLoadUpdate> own = new Recorder<>(WireSources.of(engine).watchServingLoad("own-serving-load"),
        ServingLoadUpdate::windowSequence)) {
      own.awaitAny("a window listing the pool and the model", w -> w.pools().size() == 1 && w.models().size() == 1);
      Run r = InspectTestRelay.run("serving-load", "--target", relay.target(), "--subscriber-id", "check-serving");
      assertThat(r.status()).as(r.err()).isZero();
      List<JsonNode> docs = documents(r.out());
      assertThat(docs).hasSize(1);
      JsonNode w = docs.get(0);
      assertThat(w.get("relay").get("relayIncarnation").asText())
          .isEqualTo(Long.toUnsignedString(engine.identity().relayIncarnation()));
      assertThat(w.get("pools").get(0).get("producer").get("producerIncarnation").asText())
          .isEqualTo(Long.toUnsignedString(engine.catalog().pools().get(0).producer().producerIncarnation()));
      assertThat(w.get("models").get(0).get("canonicalModelId").asText()).isEqualTo("llama");
      dev.kvrelay.grpc.proto.ServingLoadUpdate printed =
          parse(w, dev.kvrelay.grpc.proto.ServingLoadUpdate::newBuilder);
      ServingLoadUpdate window = own.get(printed.getWindowSequence());
      assertThat(printed).isEqualTo(WireCodec.toProto(engine.identity(), window));
    }
  }

  @Test
  void countBoundsTheWatchToThatManySuccessiveWindows() throws Exception {
    try (Recorder<KvPoolLoadUpdate> own = new Recorder<>(WireSources.of(engine).watchPoolLoad("own-load"),
        KvPoolLoadUpdate::windowSequence)) {
      Run r = InspectTestRelay.run("load", "--target", relay.target(), "--count", "3");
      assertThat(r.status()).as(r.err()).isZero();
      List<JsonNode> docs = documents(r.out());
      assertThat(docs).hasSize(3);
      long previous = -1;
      for (JsonNode doc : docs) {
        dev.kvrelay.grpc.proto.KvPoolLoadUpdate printed =
            parse(doc, dev.kvrelay.grpc.proto.KvPoolLoadUpdate::newBuilder);
        assertThat(printed.getWindowSequence()).as("window sequences grow").isGreaterThan(previous);
        previous = printed.getWindowSequence();
        assertThat(printed).isEqualTo(WireCodec.toProto(engine.identity(), own.get(previous)));
      }
    }
    Run usage = InspectTestRelay.run("load", "--target", relay.target(), "--count", "0");
    assertThat(usage.status()).isEqualTo(InspectCommand.USAGE);
    assertThat(usage.err()).contains("--count must be at least 1: 0");
  }

  @Test
  void secondsBoundsTheWatchAndEndsWithExitZero() throws Exception {
    long start = System.nanoTime();
    Run r = InspectTestRelay.run("serving-load", "--target", relay.target(), "--watch", "--seconds", "2");
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(elapsedMs).as("the watch lasts its seconds").isGreaterThanOrEqualTo(2_000);
    List<JsonNode> docs = documents(r.out());
    assertThat(docs).as("2 s of 100 ms windows").hasSizeGreaterThanOrEqualTo(2);
    long previous = -1;
    for (JsonNode doc : docs) {
      long sequence = Long.parseUnsignedLong(doc.path("windowSequence").asText("0"));
      assertThat(sequence).isGreaterThan(previous);
      previous = sequence;
    }
  }

  @Test
  void catalogWatchPrintsTheUpdateThatAddsASecondPool() throws Exception {
    try (Recorder<CatalogUpdate> own = new Recorder<>(WireSources.of(engine).watchCatalog("own-catalog"), CatalogUpdate::revision)) {
      InspectTestRelay.Background watch =
          InspectTestRelay.background("catalog", "--target", relay.target(), "--count", "2");
      InspectTestRelay.await("the first catalog update printed", () -> watch.out().contains("\"revision\""));
      SystemTestWorkers.start("ns/other/generate", 9, "mistral", relay.discovery, relay.plane, relay.requests);
      Run r = watch.await();
      assertThat(r.status()).as(r.err()).isZero();
      List<JsonNode> docs = documents(r.out());
      assertThat(docs).hasSize(2);
      KvPoolCatalogUpdate first = parse(docs.get(0), KvPoolCatalogUpdate::newBuilder);
      KvPoolCatalogUpdate second = parse(docs.get(1), KvPoolCatalogUpdate::newBuilder);
      assertThat(first.getSnapshot().getPoolsCount()).isEqualTo(1);
      assertThat(Long.compareUnsigned(second.getRevision(), first.getRevision())).isPositive();
      assertThat(first).isEqualTo(WireCodec.toProto(own.get(first.getRevision())));
      assertThat(second).isEqualTo(WireCodec.toProto(own.get(second.getRevision())));
      assertThat(second.getSnapshot().getPoolsList()).anySatisfy(
          d -> assertThat(d.getServingEndpoint().getComponent()).isEqualTo("other"));
    }
  }

  /** The rows of a table: header checked, then FIELD → VALUE. */
  private static Map<String, String> table(Run r) {
    assertThat(r.status()).as(r.err()).isZero();
    String[] lines = r.out().strip().split("\n");
    assertThat(lines[0]).matches("FIELD +VALUE");
    Map<String, String> rows = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      String[] kv = lines[i].split(" {2,}", 2);
      assertThat(rows.put(kv[0], kv.length == 2 ? kv[1] : "")).as("row %s once", kv[0]).isNull();
    }
    return rows;
  }

  private static long entries(Map<String, String> rows, String prefix) {
    return rows.keySet().stream().filter(k -> k.startsWith(prefix + "["))
        .map(k -> k.substring(0, k.indexOf(']') + 1)).distinct().count();
  }

  @Test
  void tablesHaveTheHeaderAndOneRowGroupPerEntry() throws Exception {
    SystemTestWorkers.start("ns/other/generate", 9, "mistral", relay.discovery, relay.plane, relay.requests);
    InspectTestRelay.await("two pools", () -> engine.catalog().pools().size() == 2);
    InspectTestRelay.await("two readiness entries", () -> engine.readiness().entries().size() == 2);
    try (Recorder<KvPoolLoadUpdate> own = new Recorder<>(WireSources.of(engine).watchPoolLoad("own-load"),
        KvPoolLoadUpdate::windowSequence)) {
      own.awaitAny("a window listing both pools", w -> w.pools().size() == 2);
    }

    Map<String, String> info = table(InspectTestRelay.run("info", "--target", relay.target(), "--output", "table"));
    assertThat(info).containsEntry("protocol_version", "1").containsEntry("contract_marker", "1263948337")
        .containsEntry("relay.drt_instance_id", Long.toUnsignedString(engine.identity().drtInstanceId()))
        .containsEntry("relay.relay_incarnation", Long.toUnsignedString(engine.identity().relayIncarnation()))
        .hasSize(4);

    Map<String, String> catalog =
        table(InspectTestRelay.run("catalog", "--target", relay.target(), "--output", "table"));
    List<KvPoolDescriptor> pools = engine.catalog().pools();
    assertThat(catalog).containsEntry("revision", Long.toUnsignedString(engine.catalog().revision()));
    assertThat(entries(catalog, "snapshot.pools")).isEqualTo(pools.size());
    for (int i = 0; i < pools.size(); i++) {
      String p = "snapshot.pools[" + i + "].";
      assertThat(catalog).containsEntry(p + "serving_endpoint.component", pools.get(i).servingEndpoint().component())
          .containsEntry(p + "producer.producer_incarnation",
              Long.toUnsignedString(pools.get(i).producer().producerIncarnation()))
          .containsEntry(p + "registrations[0].canonical_model_id",
              pools.get(i).registrations().get(0).canonicalModelId());
    }

    Map<String, String> readiness =
        table(InspectTestRelay.run("readiness", "--target", relay.target(), "--output", "table"));
    List<TopologyEntry> ready = engine.readiness().entries();
    assertThat(entries(readiness, "entries")).isEqualTo(ready.size());
    for (int i = 0; i < ready.size(); i++) {
      assertThat(readiness).containsEntry("entries[" + i + "].namespace", ready.get(i).namespace())
          .containsEntry("entries[" + i + "].canonical_model_id", ready.get(i).canonicalModelId());
    }

    Map<String, String> load = table(InspectTestRelay.run("load", "--target", relay.target(), "--output", "table"));
    assertThat(load).containsEntry("window_ms", Long.toString(WINDOW_MS));
    assertThat(entries(load, "pools")).isEqualTo(pools.size());
    List<String> loadIncarnations = new ArrayList<>();
    List<String> catalogIncarnations = new ArrayList<>();
    for (int i = 0; i < pools.size(); i++) {
      loadIncarnations.add(load.get("pools[" + i + "].producer.producer_incarnation"));
      catalogIncarnations.add(Long.toUnsignedString(pools.get(i).producer().producerIncarnation()));
    }
    assertThat(loadIncarnations).containsExactlyInAnyOrderElementsOf(catalogIncarnations);
  }
}
