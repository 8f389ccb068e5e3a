package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interop with an independent implementation of the consumer side: Debian's python3-grpcio (the gRPC C core),
 * message classes generated at test time by Debian's protoc from our relay.proto, and python3-xxhash for the CBI1
 * checksum. The client ({@code src/test/python/relay_interop_client.py}) is written from the spec, makes every
 * consumer check of wan-grpc.md §7.4, assembles the snapshot, applies the deltas the relay publishes while it reads,
 * and its final bucket words must equal the producer's words exactly at the same sequence. Skipped when the Python
 * modules or protoc are missing, except with {@code CI=true}, where that is a failure.
 */
@Timeout(30)
class PythonInteropTest {
  private static final Path PYTHON = PythonTools.PYTHON;
  private static final Path CLIENT = Path.of("src/test/python/relay_interop_client.py");
  private static final String ENDPOINT = "ns/backend/generate";
  private static final int ROUNDS = 12;
  private static final int MIN_DELTAS = 4;
  private static final long STEP_SECONDS = 10;

  @Test
  void debianGrpcClientAssemblesTheSnapshotAppliesDeltasAndEndsWithTheProducersWords(@TempDir Path gen)
      throws Exception {
    requireTools();
    generateMessages(gen);
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("py-interop").watchAll(true)
        .expectedUniqueBlocks(4096).bind("127.0.0.1:0").poolHeartbeatIntervalMs(100).build();
    SplittableRandom rnd = new SplittableRandom(4242);
    try (RelayHarness h = new RelayHarness(config, true)) {
      List<SimWorker> workers = new ArrayList<>();
      for (int k = 0; k < 2; k++) {
        workers.add(h.worker(ENDPOINT, 700 + k, card("llama", "aggregated", null, 0, 2), 0, 2, true, null).start());
      }
      KvPoolDescriptor d = h.pool(RelayHarness.ep(ENDPOINT));
      int prompt = 0;
      for (; prompt < 20; prompt++) {
        cacheOne(workers, rnd, prompt);
      }
      quiescent(h, d, workers, "java-witness-0");
      RelayGrpcServer server = RelayGrpcServer.builder().engine(h.engine).build();
      server.start();
      try (PythonClient py = PythonClient.start(gen, server.port(), "full", "--endpoint", ENDPOINT,
          "--min-deltas", Integer.toString(MIN_DELTAS))) {
        String ready = py.awaitLine("READY ");
        long snapshotSequence = Long.parseLong(ready.substring("READY ".length()).trim());
        // The relay keeps producing while Python reads: every round is at least one publication.
        for (int round = 0; round < ROUNDS; round++) {
          for (int n = 0; n < 3; n++) {
            cacheOne(workers, rnd, prompt++);
          }
          if (round % 4 == 3) {
            workers.get(rnd.nextInt(workers.size())).evictLeaves(rnd.nextInt(2), 2);
          }
          h.engine.sync().get(STEP_SECONDS, TimeUnit.SECONDS);
          Thread.sleep(15);
        }
        // Stop producing, wait for quiescence, then tell Python the sequence to finish at.
        WireReplica witness = quiescent(h, d, workers, "java-witness-1");
        long finalSequence = witness.sequence;
        long[] producer = h.engine.producerWords(d.poolId()).get(STEP_SECONDS, TimeUnit.SECONDS);
        assertThat(producer).as("producer words at the quiescent sequence").isEqualTo(witness.words);
        assertThat(finalSequence - snapshotSequence).as("deltas published while Python read")
            .isGreaterThanOrEqualTo(MIN_DELTAS);
        py.send("TARGET " + finalSequence);
        JsonObject result = py.result();

        assertThat(bool(result, "ok")).as("python client: %s", text(result, "error")).isTrue();
        RelayIdentity relay = h.engine.identity();
        JsonObject relayJson = (JsonObject) result.get("relay");
        assertThat(text(relayJson, "drt_instance_id")).isEqualTo(Long.toUnsignedString(relay.drtInstanceId()));
        assertThat(text(relayJson, "relay_incarnation")).isEqualTo(Long.toUnsignedString(relay.relayIncarnation()));
        assertThat(num(result, "protocol_version")).isEqualTo(1);
        assertThat(num(result, "bucket_count")).isEqualTo(d.producer().ckfFormat().bucketCount());
        assertThat(text(result, "dc_id")).isEqualTo(Long.toUnsignedString(d.poolId().dcId().value()));
        assertThat(num(result, "snapshot_sequence")).isEqualTo(snapshotSequence);
        assertThat(num(result, "snapshot_nonzero")).as("the snapshot was not empty").isPositive();
        assertThat(num(result, "deltas")).isEqualTo(finalSequence - snapshotSequence)
            .isGreaterThanOrEqualTo(MIN_DELTAS);
        assertThat(num(result, "heartbeats")).isPositive();
        assertThat(num(result, "sequence")).isEqualTo(finalSequence);

        long[] pythonWords = wordsFromHex(text(result, "words_hex"));
        long[] now = h.engine.producerWords(d.poolId()).get(STEP_SECONDS, TimeUnit.SECONDS);
        assertThat(now).as("producer still quiescent").isEqualTo(producer);
        assertThat(pythonWords).as("python's bucket words equal the producer's at sequence %d", finalSequence)
            .isEqualTo(producer);
        long nonZero = java.util.Arrays.stream(producer).filter(w -> w != 0).count();
        assertThat(num(result, "nonzero")).isEqualTo(nonZero).isGreaterThan(20);
      } finally {
        server.close();
      }
    }
  }

  @Test
  void debianGrpcClientWithABadMarkerGetsFailedPreconditionAndTheContractMismatchTrailer(@TempDir Path gen)
      throws Exception {
    requireTools();
    generateMessages(gen);
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("py-interop").watchAll(true)
        .expectedUniqueBlocks(4096).bind("127.0.0.1:0").build();
    try (RelayHarness h = new RelayHarness(config, true)) {
      RelayGrpcServer server = RelayGrpcServer.builder().engine(h.engine).build();
      server.start();
      try (PythonClient py = PythonClient.start(gen, server.port(), "bad-marker")) {
        JsonObject result = py.result();
        assertThat(bool(result, "ok")).as("python client: %s", text(result, "error")).isTrue();
        JsonObject bad = (JsonObject) result.get("bad_marker");
        assertThat(text(bad, "code")).isEqualTo("FAILED_PRECONDITION");
        assertThat(text(bad, "reason")).isEqualTo("RELAY_ERROR_REASON_CONTRACT_MISMATCH");
      } finally {
        server.close();
      }
    }
  }

  // ------------------------------------------------------------------ workload

  private static void cacheOne(List<SimWorker> workers, SplittableRandom rnd, int prompt) {
    int[] tokens = RelayEngineScenarioTest.prompt(31_000 + prompt, 1 + rnd.nextInt(5));
    workers.get(rnd.nextInt(workers.size())).cache(rnd.nextInt(2), tokens);
  }

  /**
   * Waits until the producer holds exactly the workers' live blocks and an in-process witness stream (opened now,
   * closed before returning) has converged to its words: the witness then tells the quiescent sequence. A fresh
   * witness each time, so no undrained stream lags while Python runs.
   */
  private static WireReplica quiescent(RelayHarness h, KvPoolDescriptor d, List<SimWorker> workers, String name)
      throws Exception {
    WireReplica witness = h.subscribe(d, name);
    try {
      h.awaitExact(witness, d, () -> live(workers));
      return witness;
    } finally {
      witness.stream.close();
    }
  }

  private static Set<Long> live(List<SimWorker> workers) {
    Set<Long> all = new HashSet<>();
    for (SimWorker w : workers) {
      all.addAll(w.liveCanonicals());
    }
    return all;
  }

  // ------------------------------------------------------------------ tools

  private static void requireTools() {
    PythonTools.requireTools();
  }

  private static void generateMessages(Path gen) {
    PythonTools.generateMessages(gen);
  }

  // ------------------------------------------------------------------ result parsing

  private static long[] wordsFromHex(String hex) {
    assertThat(hex.length() % 16).isZero();
    long[] words = new long[hex.length() / 16];
    for (int i = 0; i < words.length; i++) {
      long w = 0;
      for (int b = 7; b >= 0; b--) { // little-endian bytes
        int at = i * 16 + b * 2;
        w = (w << 8) | Integer.parseInt(hex.substring(at, at + 2), 16);
      }
      words[i] = w;
    }
    return words;
  }

  private static @Nullable JsonValue member(JsonObject o, String name) {
    return o.get(name);
  }

  private static boolean bool(JsonObject o, String name) {
    return member(o, name) instanceof JsonBoolean b && b.value();
  }

  private static @Nullable String text(JsonObject o, String name) {
    return member(o, name) instanceof JsonString s ? s.value() : null;
  }

  private static long num(JsonObject o, String name) throws Exception {
    JsonValue v = member(o, name);
    assertThat(v).as(name).isInstanceOf(JsonNumber.class);
    return ((JsonNumber) v).asLong();
  }

  /** Not thread-safe (the test thread), except its stdout pump: the Python client as a bounded subprocess. */
  /** Not thread-safe: confined to the test thread. The Python client script: READY/RESULT lines, TARGET on stdin. */
  private static final class PythonClient implements AutoCloseable {
    private final PythonProcess process;

    private PythonClient(PythonProcess process) {
      this.process = process;
    }

    static PythonClient start(Path gen, int port, String mode, String... extra) throws IOException {
      List<String> command = new ArrayList<>(List.of(PYTHON.toString(), CLIENT.toString(), "--target",
          "127.0.0.1:" + port, "--gen-dir", gen.toString(), "--mode", mode, "--timeout",
          Long.toString(STEP_SECONDS)));
      command.addAll(List.of(extra));
      return new PythonClient(
          PythonProcess.start("client", command, gen.resolve("python-stderr.txt"), STEP_SECONDS));
    }

    String awaitLine(String prefix) throws Exception {
      return process.awaitLine(prefix, "RESULT ");
    }

    void send(String line) throws IOException {
      process.send(line);
    }

    JsonObject result() throws Exception {
      String line = awaitLine("RESULT ");
      assertThat(process.awaitExit()).as("python client exited").isTrue();
      JsonValue v = Json.parse(line.substring("RESULT ".length()));
      assertThat(v).as("result: %s\nstderr: %s", line, process.stderrText()).isInstanceOf(JsonObject.class);
      return (JsonObject) v;
    }

    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }
}
