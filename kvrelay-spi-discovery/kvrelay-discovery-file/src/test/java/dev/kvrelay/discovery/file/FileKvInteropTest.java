package dev.kvrelay.discovery.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.RecordingListener;
import dev.kvrelay.spi.discovery.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay reads a tree written by two independent Python workers ({@code file_kv_worker.py}, from {@code
 * plugins-wire §8}) and writes its own records into it: one worker is killed (its files expire by mtime), one
 * shuts down cleanly (its files vanish at once), the relay's files appear and vanish with its registration, and bad
 * files are counted without changing what is known.
 */
class FileKvInteropTest {
  // keep-alive runs every 1 s (the minimum): a 3 s TTL leaves 2 s of slack for a loaded machine
  private static final Duration TTL = Duration.ofSeconds(3);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path scratch;

  private static DynamoEndpointId generate(String ns) {
    return new DynamoEndpointId(ns, "backend", "generate");
  }

  private static JsonObject register(String op, String ns, String extraName, String extraValue) {
    return JsonObject.builder().put("op", op).put("namespace", ns).put("component", "backend")
        .put("endpoint", "generate").put(extraName, extraValue).build();
  }

  @Test
  void killedWorkerExpiresCleanWorkerVanishesAtOnceRelayFilesFollowTheRegistration() throws Exception {
    Path root = scratch.resolve("dynamo_store_kv");
    try (PythonWorker a = PythonWorker.start(root, TTL, scratch);
        PythonWorker b = PythonWorker.start(root, TTL, scratch);
        FileDiscovery discovery = FileDiscovery.builder(root).ttl(TTL).open()) {
      // B holds its sweep of others' expired files until the relay has expired A's: otherwise, on a loaded machine,
      // B could delete one of A's files first and the relay would see a delete instead of an expiry
      b.sweep(false);
      RecordingListener l = new RecordingListener();
      DiscoveryWatch watch = discovery.watch(DiscoveryScope.watchAll(), l);

      String keyA = a.call(register("register_endpoint", "team-a", "address", "127.0.0.1:7001/generate"));
      a.call(register("register_model", "team-a", "display_name", "Qwen/Qwen3-0.6B"));
      String keyB = b.call(register("register_endpoint", "team-a", "address", "127.0.0.1:7002/generate"));
      b.call(register("register_model", "team-a", "display_name", "Qwen/Qwen3-0.6B"));
      assertThat(keyA).isEqualTo("team-a/backend/generate/" + a.idHex());

      EndpointKey endpointA = new EndpointKey(generate("team-a"), a.id());
      EndpointKey endpointB = new EndpointKey(generate("team-a"), b.id());
      ModelKey modelA = new ModelKey(generate("team-a"), a.id(), null);
      ModelKey modelB = new ModelKey(generate("team-a"), b.id(), null);
      l.await(WAIT, "both workers", x -> x.view().keySet().containsAll(List.of(endpointA, endpointB, modelA, modelB)));
      EndpointRecord seenA = (EndpointRecord) l.view().get(endpointA);
      assertThat(seenA.transport()).isEqualTo(new Transport.Tcp("127.0.0.1:7001/generate"));
      assertThat(seenA.requestPlaneCodec()).isEqualTo("msgpack");
      assertThat(((ModelRecord) l.view().get(modelB)).card().displayName()).isEqualTo("Qwen/Qwen3-0.6B");
      // the worker's file name is the §8 encoding of the key, as this module computes it
      assertThat(root.resolve("v1/instances").resolve("team%2Da%2Fbackend%2Fgenerate%2F" + b.idHex())).exists();
      assertThat(KeyFileNames.encode(keyB)).isEqualTo("team%2Da%2Fbackend%2Fgenerate%2F" + b.idHex());

      // the relay registers its own endpoint; the independent reader finds it under the §8 name with our JSON
      FileKvRegistration own = discovery.register();
      EndpointRecord relay = new EndpointRecord(new EndpointKey(generate("relay"), own.connectionId()),
          new Transport.Tcp("127.0.0.1:7100/generate"), "json", null);
      own.put(relay);
      l.await(WAIT, "the relay's own endpoint", x -> relay.equals(x.view().get(relay.key())));
      Map<String, String> seenByPython = readBucket(a, "v1/instances");
      assertThat(seenByPython).containsKey(relay.key().storageKey());
      JsonObject relayJson = (JsonObject) Json.parse(seenByPython.get(relay.key().storageKey()));
      assertThat(relayJson.get("type")).isEqualTo(new JsonString("Endpoint"));
      assertThat(relayJson.get("instance_id").toJson()).isEqualTo(Long.toUnsignedString(own.connectionId()));
      try (Stream<Path> files = Files.list(root.resolve("v1/instances"))) {
        assertThat(files.map(p -> p.getFileName().toString())).noneMatch(KeyFileNames::isTemporary);
      }

      // a killed worker cleans nothing up: its records go when their mtime passes the TTL
      long expiredBefore = discovery.stats().expired();
      a.kill();
      l.await(WAIT, "worker A's records to expire",
          x -> !x.view().containsKey(endpointA) && !x.view().containsKey(modelA));
      assertThat(discovery.stats().expired() - expiredBefore).isEqualTo(2);
      assertThat(l.view()).containsKeys(endpointB, modelB, relay.key());
      // ... and B's keep-alive sweep deletes A's orphaned files from the directory, as Dynamo does
      b.sweep(true);
      Path orphan = root.resolve("v1/instances").resolve(KeyFileNames.encode(keyA));
      awaitTrue("B's sweep to delete A's orphan", () -> !Files.exists(orphan));

      // a clean shutdown deletes B's files: removed on the delete events, not by expiry
      long expiredAfterA = discovery.stats().expired();
      b.shutdown();
      l.await(WAIT, "worker B's records to be removed",
          x -> !x.view().containsKey(endpointB) && !x.view().containsKey(modelB));
      assertThat(discovery.stats().expired()).isEqualTo(expiredAfterA);
      assertThat(l.payloads("removed")).contains(endpointA, modelA, endpointB, modelB);

      // the relay's own files are refreshed (they outlive several TTLs) and vanish with its registration
      // four more keep-alive rounds (1 s apart at this TTL) span a TTL: the relay's record must not expire
      long rounds = own.stats().refreshes();
      long expiredBefore3 = discovery.stats().expired();
      awaitTrue("four keep-alive rounds", () -> own.stats().refreshes() >= rounds + 4);
      assertThat(l.view()).containsKey(relay.key());
      assertThat(discovery.stats().expired()).isEqualTo(expiredBefore3);
      own.close();
      l.await(WAIT, "the relay's endpoint to be removed", x -> !x.view().containsKey(relay.key()));
      assertThat(own.fileOf(relay.key())).doesNotExist();
      assertThat(discovery.stats().badFiles()).isZero();
      watch.close();
      l.assertContractKept();
    }
  }

  @Test
  void badFilesAreCountedReportedAndChangeNothing() throws Exception {
    Path root = scratch.resolve("kv");
    try (PythonWorker w = PythonWorker.start(root, Duration.ofSeconds(10), scratch);
        FileDiscovery discovery = FileDiscovery.builder(root).open()) {
      String good = w.call(register("register_endpoint", "team-a", "address", "127.0.0.1:7001/generate"));
      RecordingListener l = new RecordingListener();
      discovery.watch(DiscoveryScope.watchAll(), l);
      EndpointKey key = new EndpointKey(generate("team-a"), w.id());
      l.await(WAIT, "the good record", x -> x.view().containsKey(key));
      Map<DiscoveryKey, DiscoveryRecord> before = new HashMap<>(l.view());

      // invalid JSON under a fresh key
      w.put("v1/instances", "team-a/backend/generate/abc", "{\"type\":\"Endpoint\",");
      // a valid value under the wrong key (the instance id in the key differs from the value's)
      String valid = readBucket(w, "v1/instances").get("v1/instances/" + good);
      w.put("v1/instances", "team-a/backend/generate/def", valid);
      // a file name that is not the §8 encoding of any key
      w.putName("v1/instances", "notes.txt", "hello");
      // the good key's own file overwritten with garbage: the known record stays
      w.put("v1/instances", good, "not json");
      l.await(WAIT, "four errors", x -> x.errors().size() >= 4);

      assertThat(discovery.stats().badFiles()).isEqualTo(4);
      assertThat(l.errors()).allSatisfy(e -> assertThat(e).isInstanceOf(DiscoveryDecodeException.class));
      assertThat(l.errors().stream().map(e -> ((DiscoveryDecodeException) e).reason()))
          .containsExactlyInAnyOrder(DiscoveryDecodeException.Reason.INVALID_JSON,
              DiscoveryDecodeException.Reason.KEY_MISMATCH, DiscoveryDecodeException.Reason.INVALID_PATH,
              DiscoveryDecodeException.Reason.INVALID_JSON);
      // bad files are not counted again at later rescans, nor when the worker's keep-alive touches them
      long rescans = discovery.stats().rescans();
      awaitTrue("two more rescans", () -> discovery.stats().rescans() >= rescans + 2);
      assertThat(discovery.stats().badFiles()).isEqualTo(4);
      assertThat(l.view()).isEqualTo(before);

      // the good key becomes valid again: no change to report, no error; a new watch sees the bad files
      w.put("v1/instances", good, valid);
      RecordingListener late = new RecordingListener();
      discovery.watch(DiscoveryScope.watchAll(), late);
      late.await(WAIT, "the snapshot and the three remaining errors",
          x -> !x.payloads("snapshot").isEmpty() && x.errors().size() == 3);
      assertThat(late.view()).isEqualTo(before);
      assertThat(l.view()).isEqualTo(before);
      l.assertContractKept();
      late.assertContractKept();
    }
  }

  private static Map<String, String> readBucket(PythonWorker w, String bucket) throws Exception {
    JsonObject read = (JsonObject) Json.parse(w.call(JsonObject.builder().put("op", "read").put("bucket", bucket)
        .build()));
    Map<String, String> out = new HashMap<>();
    read.members().forEach((k, v) -> out.put(k, ((JsonString) v).value()));
    return out;
  }

  /** Not thread-safe: a condition polled by the test thread. */
  interface Condition {
    boolean holds() throws Exception;
  }

  static void awaitTrue(String what, Condition c) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!c.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
