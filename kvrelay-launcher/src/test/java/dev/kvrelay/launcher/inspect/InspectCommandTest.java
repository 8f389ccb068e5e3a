package dev.kvrelay.launcher.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.inspect.InspectTestRelay.Run;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvrelay inspect} against a real relay (engine, in-memory planes, a simulated worker, the gRPC server):
 * JSON compared with the relay's own state, pool validation green on the real stream and red on a corrupting one.
 */
@Timeout(120)
class InspectCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private InspectTestRelay relay;
  private RelayEngine engine;
  private RelayGrpcServer server;

  @BeforeEach
  void start() throws Exception {
    relay = InspectTestRelay.start(b -> b.set(dev.kvrelay.engine.RelayConfigKey.MAX_CATALOG_SUBSCRIBERS, 2));
    engine = relay.engine;
    server = relay.server;
  }

  @AfterEach
  void stop() throws Exception {
    relay.close();
  }

  static Run run(String... args) {
    return InspectTestRelay.run(args);
  }

  private String target() {
    return relay.target();
  }

  @Test
  void infoPrintsTheRelaysIdentityAsGrpcurlDoes() throws Exception {
    Run r = run("info", "--target", target());
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode info = JSON.readTree(r.out());
    assertThat(info.get("protocolVersion").asInt()).isEqualTo(1);
    assertThat(info.get("contractMarker").asLong()).isEqualTo(1263948337L);
    // proto3 JSON: fixed64 as decimal strings, camelCase names, exactly the seed's shape.
    assertThat(info.get("relay").get("drtInstanceId").isTextual()).isTrue();
    assertThat(info.get("relay").get("drtInstanceId").asText())
        .isEqualTo(Long.toUnsignedString(engine.identity().drtInstanceId()));
    assertThat(info.get("relay").get("relayIncarnation").asText())
        .isEqualTo(Long.toUnsignedString(engine.identity().relayIncarnation()));
    assertThat(r.out()).startsWith("{\n  \"protocolVersion\": 1,\n  \"relay\": {");
  }

  @Test
  void catalogAndReadinessMatchTheRelaysState() throws Exception {
    Run c = run("catalog", "--target", target(), "--max-msg-sz", "8388608");
    assertThat(c.status()).as(c.err()).isZero();
    JsonNode catalog = JSON.readTree(c.out());
    KvPoolDescriptor pool = engine.catalog().pools().get(0);
    assertThat(catalog.get("revision").asText()).isEqualTo(Long.toUnsignedString(engine.catalog().revision()));
    JsonNode pools = catalog.get("snapshot").get("pools");
    assertThat(pools).hasSize(1);
    JsonNode d = pools.get(0);
    assertThat(d.get("servingEndpoint").get("namespace").asText()).isEqualTo("ns");
    assertThat(d.get("servingEndpoint").get("component").asText()).isEqualTo("backend");
    assertThat(d.get("producer").get("producerIncarnation").asText())
        .isEqualTo(Long.toUnsignedString(pool.producer().producerIncarnation()));
    assertThat(d.get("producer").get("poolId").get("dcId").asText())
        .isEqualTo(Long.toUnsignedString(pool.producer().poolId().dcId().value()));
    assertThat(d.get("registrations").get(0).get("canonicalModelId").asText()).isEqualTo("llama");

    Run rd = run("readiness", "--target", target());
    assertThat(rd.status()).as(rd.err()).isZero();
    JsonNode entries = JSON.readTree(rd.out()).get("entries");
    assertThat(entries).hasSize(engine.readiness().entries().size());
    assertThat(entries.get(0).get("namespace").asText()).isEqualTo("ns");
    assertThat(entries.get(0).get("canonicalModelId").asText()).isEqualTo("llama");

    Run table = run("catalog", "--target", target(), "--output", "table");
    assertThat(table.status()).isZero();
    assertThat(table.out()).contains("snapshot.pools[0].serving_endpoint.namespace", "ns")
        .contains("snapshot.pools[0].registrations[0].canonical_model_id");
  }

  @Test
  void poolValidatesTheRealStreamAndReportsTheFilter() throws Exception {
    relay.startChurn();
    Run r = run("pool", "ns.backend.generate", "--target", target(), "--seconds", "3");
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "inspect-pool-run.txt"), "$ kvrelay inspect pool ns.backend.generate --target "
        + target() + " --seconds 3\n" + r.err() + r.out() + "exit " + r.status() + "\n", StandardCharsets.UTF_8);
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode p = JSON.readTree(r.out());
    assertThat(p.get("valid").asBoolean()).isTrue();
    assertThat(p.get("violation").asText()).isEmpty();
    assertThat(p.get("pool").asText()).isEqualTo("ns.backend.generate");
    assertThat(p.get("snapshotChunks").asLong()).isPositive();
    assertThat(p.get("deltas").asLong()).as("the churning worker makes deltas").isPositive();
    assertThat(p.get("buckets").asInt())
        .isEqualTo(engine.catalog().pools().get(0).producer().ckfFormat().bucketCount());
    // Every resident block holds one fingerprint; the replica holds at least the 3 first blocks plus churn.
    assertThat(p.get("occupiedSlots").asLong()).isGreaterThan(3);
    assertThat(r.err()).contains("snapshot: ").contains("MB/s").contains("installed");
  }

  @Test
  void poolWithoutAnEndpointFollowsTheFirstCatalogPoolAndQueryAnswersTheCachedDepth(@TempDir Path dir)
      throws Exception {
    Run r = run("pool", "--target", target(), "--seconds", "1", "--output", "table");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("ns.backend.generate").containsPattern("occupiedSlots +3\\b")
        .containsPattern("valid +true");

    String csv = InspectTestRelay.csv(InspectTestRelay.tokens(100, 3));
    Run q = run("query", "--target", target(), "--tokens", csv + "," + csv);
    assertThat(q.status()).as(q.err()).isZero();
    JsonNode a = JSON.readTree(q.out());
    assertThat(a.get("requestBlocks").asInt()).isEqualTo(6);
    assertThat(a.get("prefixBlocks").asInt()).isEqualTo(3);
    assertThat(a.get("prefixTokens").asLong()).isEqualTo(3L * SystemTestWorkers.BLOCK_SIZE);

    Path file = dir.resolve("prompt.txt");
    Files.writeString(file, "999 " + csv.replace(',', ' '), StandardCharsets.UTF_8);
    Run miss = run("query", "ns.backend.generate", "--target", target(), "--text-file", file.toString());
    assertThat(miss.status()).as(miss.err()).isZero();
    assertThat(JSON.readTree(miss.out()).get("prefixBlocks").asInt()).as("a different first token").isZero();
  }

  @Test
  void aFlippedBitInOneDeltaFailsValidationNamingTheFrame() throws Exception {
    relay.startChurn();
    try (CorruptingRelay bad = new CorruptingRelay(server.port(), CorruptingRelay.Fault.FLIP_BIT)) {
      Run r = run("pool", "--target", "127.0.0.1:" + bad.port(), "--seconds", "20");
      Files.createDirectories(Path.of("target"));
      Files.writeString(Path.of("target", "inspect-pool-flip-bit.txt"), r.err() + r.out() + "exit " + r.status() + "\n",
          StandardCharsets.UTF_8);
      assertThat(r.status()).as(r.out() + r.err()).isEqualTo(InspectCommand.INVALID);
      assertThat(bad.deltasSeen()).isGreaterThanOrEqualTo(CorruptingRelay.TARGET_DELTA);
      JsonNode p = JSON.readTree(r.out());
      assertThat(p.get("valid").asBoolean()).isFalse();
      assertThat(p.get("violation").asText()).contains("(DELTA, base_sequence ").contains("DECODE_FAILED CHECKSUM: stored 0x");
      assertThat(r.err()).contains("INVALID frame #");
    }
  }

  @Test
  void aSkippedSequenceFailsValidationNamingTheFrame() throws Exception {
    relay.startChurn();
    try (CorruptingRelay bad = new CorruptingRelay(server.port(), CorruptingRelay.Fault.SKIP_SEQUENCE)) {
      Run r = run("pool", "--target", "127.0.0.1:" + bad.port(), "--seconds", "20");
      Files.createDirectories(Path.of("target"));
      Files.writeString(Path.of("target", "inspect-pool-skip-sequence.txt"), r.err() + r.out() + "exit " + r.status() + "\n",
          StandardCharsets.UTF_8);
      assertThat(r.status()).as(r.out() + r.err()).isEqualTo(InspectCommand.INVALID);
      JsonNode p = JSON.readTree(r.out());
      assertThat(p.get("violation").asText()).contains("(DELTA, base_sequence ")
          .contains("LANE_REJECTED BASE_SEQUENCE_MISMATCH");
      assertThat(r.err()).contains("INVALID frame #");
    }
  }

  @Test
  void callErrorsNameTheGrpcStatusAndTheRelayReason() throws Exception {
    Run r = run("pool", "no.such.pool", "--target", target(), "--seconds", "1");
    assertThat(r.status()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(r.err()).contains("no catalog pool no.such.pool");

    Run down = run("info", "--target", "127.0.0.1:1");
    assertThat(down.status()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(down.err()).contains("UNAVAILABLE").contains("kv-relay-error-reason=");

    Run usage = run("pool");
    assertThat(usage.status()).isEqualTo(InspectCommand.USAGE);
    assertThat(usage.err()).contains("--target");

    try (var one = WireSources.of(engine).watchCatalog("holder-1"); var two = WireSources.of(engine).watchCatalog("holder-2")) {
      Run limited = run("catalog", "--target", target());
      assertThat(limited.status()).as(limited.out()).isEqualTo(InspectCommand.CALL_FAILED);
      assertThat(limited.err()).contains("WatchKvPoolCatalog: RESOURCE_EXHAUSTED kv-relay-error-reason="
          + dev.kvrelay.api.RelayErrorReason.RESOURCE_LIMIT.wireName());
    }
  }
}
