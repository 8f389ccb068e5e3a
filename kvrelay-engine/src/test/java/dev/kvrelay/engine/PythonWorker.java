package dev.kvrelay.engine;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.eventplane.WorkerKvQueryCodec;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe (commands are serialized on the instance): one independent Python worker process, {@code
 * kvrelay-spi-eventplane/src/test/python/kv_worker.py} on Debian's python3 (msgpack, and libzmq through
 * python3-zmq for the ZMQ modes), written from the spec: it keeps the true KV state of its ranks, publishes their
 * kv-events over ZMQ or raw NATS, and answers worker KV queries from that state. Shared by the event-plane
 * modules' end-to-end tests through the engine's test-jar; their working directory is the plugin module.
 */
public final class PythonWorker implements AutoCloseable {
  public static final Path PYTHON = Path.of("/usr/bin/python3");
  public static final Path SCRIPT = Path.of("../src/test/python/kv_worker.py");

  /** Immutable and thread-safe: one rank's publisher as the worker reported it. */
  public record Publisher(int rank, long publisherId, String endpoint) {}

  public final long workerId;
  private static final java.time.Duration ANSWER = java.time.Duration.ofSeconds(60);
  private final LineProcess peer;
  private final List<Publisher> publishers = new ArrayList<>();
  private volatile boolean dead;

  private PythonWorker(long workerId, int ranks, List<String> mode) throws IOException, InterruptedException {
    this.workerId = workerId;
    List<String> cmd = new ArrayList<>(List.of(PYTHON.toString(), SCRIPT.toString(), Long.toUnsignedString(workerId),
        Integer.toString(ranks)));
    cmd.addAll(mode);
    peer = LineProcess.start(cmd, "kv-worker-" + Long.toUnsignedString(workerId));
    String ready = next("READY ");
    try {
      for (JsonValue v : ((JsonArray) Json.parse(ready.substring("READY ".length()))).elements()) {
        JsonObject o = (JsonObject) v;
        publishers.add(new Publisher(((JsonNumber) o.get("rank")).asInt(),
            ((JsonNumber) o.get("publisher_id")).asUnsignedLong(), ((JsonString) o.get("endpoint")).value()));
      }
    } catch (Exception e) {
      throw new AssertionError("bad READY line: " + ready, e);
    }
  }

  /**
   * Skips the test unless Debian's python3 with msgpack (and zmq when {@code zmq}) is installed; with {@code CI=true}
   * a missing peer fails the test instead ({@code .ci/run} installs them).
   */
  public static void assumePeers(boolean zmq) throws Exception {
    boolean ok = Files.isExecutable(PYTHON);
    if (ok) {
      Process p = new ProcessBuilder(PYTHON.toString(), "-c", zmq ? "import msgpack, zmq" : "import msgpack")
          .redirectErrorStream(true).start();
      ok = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }
    String missing = "Debian python3 with python3-msgpack" + (zmq ? " and python3-zmq" : "") + " missing";
    if (!ok && "true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new AssertionError("CI=true but " + missing);
    }
    assumeTrue(ok, missing);
  }

  /** Starts a worker with {@code ranks} data-parallel ranks in {@code mode} (see the script's usage). */
  public static PythonWorker start(long workerId, int ranks, String... mode) throws Exception {
    return new PythonWorker(workerId, ranks, List.of(mode));
  }

  public List<Publisher> publishers() {
    return List.copyOf(publishers);
  }

  /** Publishes {@code n} events on every rank. */
  public void events(int n) throws Exception {
    command("{\"op\":\"events\",\"count\":" + n + "}", "OK ");
  }

  /** {@code n} events of {@code rank} whose messages are never sent: the next message shows a sequence gap. */
  public void skip(int rank, int n) throws Exception {
    command("{\"op\":\"skip\",\"rank\":" + rank + ",\"count\":" + n + "}", "OK ");
  }

  /** ZMQ direct: rank {@code rank}'s PUB socket closes, {@code lost} events happen, it binds the same port again. */
  public void rebind(int rank, int lost) throws Exception {
    command("{\"op\":\"rebind\",\"rank\":" + rank + ",\"lost\":" + lost + "}", "OK ");
  }

  /** The worker's answer to a worker KV query, from its true state; an {@code Error} once the process is gone. */
  public WorkerKvQueryResponse query(WorkerKvQueryRequest request) {
    if (dead) {
      return new WorkerKvQueryResponse.Error("worker process gone");
    }
    try {
      String line = command("{\"op\":\"query\",\"req\":" + WorkerKvQueryCodec.encodeRequest(request) + "}", "ANSWER ");
      return WorkerKvQueryCodec.decodeResponse(line.substring("ANSWER ".length()));
    } catch (Exception e) {
      return new WorkerKvQueryResponse.Error("worker query failed: " + e);
    }
  }

  /** The canonical hashes of the worker's live blocks on every rank (root blocks: the tokens hashes). */
  public Set<Long> live() throws Exception {
    String line = command("{\"op\":\"state\"}", "STATE ");
    Set<Long> out = new HashSet<>();
    for (JsonValue v : ((JsonArray) Json.parse(line.substring("STATE ".length()))).elements()) {
      out.add(Long.parseUnsignedLong(((JsonString) v).value()));
    }
    return out;
  }

  private synchronized String command(String json, String prefix) throws Exception {
    if (dead) {
      throw new IllegalStateException("worker " + workerId + " is gone");
    }
    return peer.request(json, prefix, ANSWER);
  }

  private String next(String prefix) throws InterruptedException, IOException {
    return peer.next(prefix, ANSWER);
  }

  /** Kills the process (a crash: nothing more is published or answered). */
  public void kill() throws InterruptedException {
    dead = true;
    peer.kill();
  }

  @Override
  public void close() throws InterruptedException {
    dead = true;
    try {
      peer.close(); // stdin closed: the worker exits; killed after 10 s
    } catch (IOException ignored) {
      // the stderr file is gone already
    }
  }
}
