package dev.kvrelay.launcher.rehearsal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.engine.LineProcess;
import dev.kvrelay.engine.WireReplica;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.launcher.LauncherProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed's deployment rehearsed on this machine (issue 12, "The rehearsal"): a real etcd for discovery (the
 * seed's Kubernetes backend swapped for etcd, since no API server is packaged here), a real nats-server, three
 * independent Python workers ({@code rehearsal_worker.py}) that advertise their cards, instances and KV event sources
 * in etcd under their own leases and publish over NATS, and the stock relay as a child process with the seed
 * manifest's arguments and environment. It runs the seed's verification (GetRelayInfo, catalog, readiness, /health,
 * /metrics), then faults; after each, a {@link RelayGrpcClient} replica of every pool equals the exact model of its
 * worker's live blocks. Every step prints its duration ("REHEARSAL ...").
 */
@Timeout(600)
class SeedRehearsalTest {
  private static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final Path ETCD = Path.of("/usr/bin/etcd");
  private static final Path ETCDCTL = Path.of("/usr/bin/etcdctl");
  private static final Path NATS = Path.of("/usr/sbin/nats-server");
  private static final Path WORKER = Path.of("src/test/python/rehearsal_worker.py");
  private static final Pattern SERVING = Pattern.compile("kvrelay: serving dc-a on 127\\.0\\.0\\.1:(\\d+)");
  private static final Pattern SYSTEM = Pattern.compile("kvrelay: system server on 127\\.0\\.0\\.1:(\\d+) .*");
  private static final String NS = "dynamo";
  private static final String DISAGG = "Qwen/Qwen3-0.6B";
  private static final String AGG = "meta-llama/Llama-3.1-8B";
  private static final long DEADLINE_MS = 60_000;

  @TempDir Path tmp;

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<AutoCloseable> closers = new ArrayList<>();
  private long stepStart;

  @Test
  void theSeedsDeploymentOnEtcdAndNatsWithThreePythonWorkersSurvivesItsFaults() throws Exception {
    rehearse("nats");
  }

  @Test
  void theSeedsDeploymentOnEtcdAndZmqWithThreePythonWorkersSurvivesItsFaults() throws Exception {
    rehearse("zmq");
  }

  /**
   * The whole rehearsal on {@code plane}: for nats the plane fault is a nats-server restart, for zmq (no server) a
   * publisher that closes its PUB socket, loses events while it is down and binds the same port again.
   */
  private void rehearse(String plane) throws Exception {
    requireTools();
    boolean zmq = plane.equals("zmq");
    if (zmq) {
      requirePythonModule("zmq", "python3-zmq");
    }
    boolean passed = false;
    try {
      step();
      Service etcd = Service.etcd(tmp.resolve("etcd"));
      closers.add(etcd);
      Service nats = Service.nats(tmp.resolve("nats"));
      closers.add(nats);
      Map<String, Worker> workers = new LinkedHashMap<>();
      workers.put("prefill", Worker.start(etcd.url(), "prefill", DISAGG, "prefill", "decode", "-", plane, nats.port));
      workers.put("decode", Worker.start(etcd.url(), "decode", DISAGG, "decode", "prefill", "-", plane, nats.port));
      workers.put("agg", Worker.start(etcd.url(), "agg", AGG, "aggregated", "-", "sql:sql-lora", plane, nats.port));
      closers.addAll(workers.values());
      done(plane + " 1 etcd, nats-server and 3 Python workers advertised");

      step();
      Map<String, String> env = new HashMap<>();
      env.put("DYN_NAMESPACE", NS);
      env.put("DYN_DISCOVERY_BACKEND", "etcd");
      env.put("ETCD_ENDPOINTS", etcd.url());
      env.put("DYN_EVENT_PLANE", plane);
      env.put("NATS_SERVER", "nats://127.0.0.1:" + nats.port);
      env.put("DYN_REQUEST_PLANE", "tcp");
      env.put("DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.1");
      env.put("DYN_SYSTEM_PORT", "0");
      env.put("DYN_SYSTEM_HOST", "127.0.0.1");
      LauncherProcess relay = startRelay(env, 0);
      int port = Integer.parseInt(relay.awaitLine(SERVING).group(1));
      int systemPort = Integer.parseInt(relay.awaitLine(SYSTEM).group(1));
      assertThat(relay.stderr()).contains("plugins open: discovery=etcd eventPlane=" + plane + " requestPlane=tcp");
      done(plane + " 2 stock relay serving");

      step();
      RelayGrpcClient client = RelayGrpcClient.builder().target("127.0.0.1:" + port).build();
      closers.add(client);
      RelayIdentity first = client.getRelayInfo();
      List<KvPoolDescriptor> pools = awaitCatalog(client, 3);
      assertThat(pools).extracting(p -> p.servingEndpoint().component())
          .containsExactlyInAnyOrder("prefill", "decode", "agg");
      TopologySnapshot readiness = awaitReadiness(client);
      TopologyEntry disagg = entry(readiness, DISAGG);
      assertThat(disagg.presentRoles()).containsExactlyInAnyOrder(WorkerRole.PREFILL, WorkerRole.DECODE);
      assertThat(disagg.missingRoles()).isEmpty();
      assertThat(disagg.members()).hasSize(2);
      TopologyEntry agg = entry(readiness, AGG);
      assertThat(agg.adapters()).as("the LoRA under its base entry: %s", agg).hasSize(1);
      assertThat(readiness.entries()).as("one entry per base model, none for the adapter").hasSize(2);
      HttpResponse<String> health = get(systemPort, "/health");
      assertThat(health.statusCode()).as("health: %s", health.body()).isEqualTo(200);
      assertThat(get(systemPort, "/metrics").body())
          .containsPattern("(?m)^dynamo_component_kv_dc_relay_catalog_pool_count\\{[^}]*\\} 3(\\.0)?$");
      done(plane + " 3a GetRelayInfo, catalog, readiness, /health, /metrics");

      step();
      awaitExact(plane + " initial", client, workers);
      done(plane + " 3b replicas equal the workers' exact model");

      step();
      inspectEveryPool(pools, port, systemPort);
      done(plane + " 3c kvrelay inspect pool validates every pool's stream");

      step();
      Worker old = workers.get("agg");
      old.close();
      workers.put("agg", Worker.start(etcd.url(), "agg", AGG, "aggregated", "-", "sql:sql-lora", plane, nats.port));
      closers.add(workers.get("agg"));
      awaitExact(plane + " worker restart", client, workers);
      done(plane + " 4a worker restart");

      step();
      if (zmq) {
        for (Worker w : workers.values()) {
          w.command("{\"op\":\"rebind\",\"lost\":25}", "OK ");
        }
        awaitExact(plane + " publisher rebind with lost events", client, workers);
        done(plane + " 4b ZMQ publishers rebind, 25 events each lost");
      } else {
        nats.kill();
        nats.start();
        awaitExact(plane + " nats-server restart", client, workers);
        done(plane + " 4b nats-server restart");
      }

      step();
      relay.process.destroyForcibly(); // SIGKILL
      relay.process.waitFor(10, TimeUnit.SECONDS);
      relay = startRelay(env, port); // the same port: the same client reconnects
      assertThat(Integer.parseInt(relay.awaitLine(SERVING).group(1))).isEqualTo(port);
      RelayIdentity second = client.getRelayInfo();
      assertThat(second.relayIncarnation()).as("a new incarnation").isNotEqualTo(first.relayIncarnation());
      awaitExact(plane + " relay kill -9 and restart", client, workers);
      done(plane + " 4c relay kill -9 and restart");

      step();
      etcd.kill();
      etcd.start();
      awaitExact(plane + " etcd restart", client, workers);
      done(plane + " 4d etcd restart");
      passed = true;
    } finally {
      if (!passed) {
        for (AutoCloseable c : closers) {
          if (c instanceof LauncherProcess r) {
            String err = r.stderr();
            System.out.println("REHEARSAL relay pid " + r.process.pid() + " stderr tail:\n"
                + err.substring(Math.max(0, err.length() - 12_000)));
          }
        }
      }
      for (int i = closers.size() - 1; i >= 0; i--) {
        try {
          closers.get(i).close();
        } catch (Exception e) {
          System.out.println("REHEARSAL close: " + e);
        }
      }
    }
  }

  private LauncherProcess startRelay(Map<String, String> env, int port) throws IOException {
    LauncherProcess relay = LauncherProcess.start(env, "--dc-id", "dc-a", "--watch-all", "--bind",
        "127.0.0.1:" + port);
    closers.add(relay);
    return relay;
  }

  private void step() {
    stepStart = System.nanoTime();
  }

  /**
   * {@code kvrelay inspect pool} (a child JVM running {@code Main}, as the relay runs here) subscribes to each pool
   * of the relay fed by the Python workers, validates every frame and exits 0; the occupancy and sequence it
   * assembled from the stream equal the relay's own producer gauges on {@code /metrics} (the workers are quiet
   * after the last step).
   */
  private void inspectEveryPool(List<KvPoolDescriptor> pools, int port, int systemPort) throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    for (KvPoolDescriptor d : pools) {
      String ep = d.servingEndpoint().dottedName();
      try (LauncherProcess inspect = LauncherProcess.start(Map.of(), "inspect", "pool", ep, "--target",
          "127.0.0.1:" + port, "--seconds", "2")) {
        assertThat(inspect.process.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS)).as("inspect pool %s exits", ep)
            .isTrue();
        String out = String.join("\n", inspect.stdoutLines());
        assertThat(inspect.process.exitValue()).as("inspect pool %s: %s %s", ep, out, inspect.stderr()).isZero();
        com.fasterxml.jackson.databind.JsonNode r = json.readTree(out.substring(out.indexOf('{')));
        assertThat(r.get("valid").asBoolean()).isTrue();
        assertThat(r.get("pool").asText()).isEqualTo(ep);
        String metrics = get(systemPort, "/metrics").body();
        assertThat(r.get("occupiedSlots").asLong()).as("%s occupied slots", ep)
            .isEqualTo(gauge(metrics, "kvrelay_pool_ckf_occupied_slots", ep));
        assertThat(Long.parseUnsignedLong(r.get("sequence").asText())).as("%s sequence", ep)
            .isEqualTo(gauge(metrics, "kvrelay_pool_published_sequence", ep));
      }
    }
  }

  private static long gauge(String metrics, String name, String pool) {
    java.util.regex.Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*pool=\"" + Pattern.quote(pool)
        + "\"[^}]*\\} ([0-9.eE+]+)$").matcher(metrics);
    assertThat(m.find()).as("%s{pool=%s} on /metrics", name, pool).isTrue();
    return (long) Double.parseDouble(m.group(1));
  }

  private void done(String label) {
    System.out.println("REHEARSAL " + label + ": " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stepStart)
        + " ms");
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static TopologyEntry entry(TopologySnapshot t, String model) {
    return t.entries().stream().filter(e -> e.canonicalModelId().equals(model)).findFirst()
        .orElseThrow(() -> new AssertionError("no readiness entry for " + model + " in " + t));
  }

  private static List<KvPoolDescriptor> awaitCatalog(RelayGrpcClient client, int n) throws Exception {
    try (RelayStream<CatalogUpdate> catalog = WireSources.of(client).watchCatalog("rehearsal")) {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
      List<DescriptorWire> last = List.of();
      while (System.nanoTime() < until) {
        CatalogUpdate u = catalog.poll(1, TimeUnit.SECONDS);
        if (u != null) {
          last = u.pools();
          if (last.size() == n) {
            List<KvPoolDescriptor> out = new ArrayList<>();
            for (DescriptorWire w : last) {
              out.add(CatalogValidator.validate(w));
            }
            return out;
          }
        }
      }
      throw new AssertionError(n + " pools in the catalog within " + DEADLINE_MS + " ms; last " + last);
    }
  }

  private static TopologySnapshot awaitReadiness(RelayGrpcClient client) throws Exception {
    try (RelayStream<TopologySnapshot> s = WireSources.of(client).watchReadiness("rehearsal")) {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
      TopologySnapshot last = null;
      while (System.nanoTime() < until) {
        TopologySnapshot t = s.poll(1, TimeUnit.SECONDS);
        if (t != null) {
          last = t;
          boolean both = t.entries().stream().anyMatch(e -> e.canonicalModelId().equals(DISAGG)
              && e.missingRoles().isEmpty() && e.presentRoles().size() == 2);
          boolean lora = t.entries().stream().anyMatch(e -> e.canonicalModelId().equals(AGG)
              && !e.adapters().isEmpty());
          if (both && lora) {
            return t;
          }
        }
      }
      throw new AssertionError("readiness with both roles and the LoRA within " + DEADLINE_MS + " ms; last " + last);
    }
  }

  /**
   * Waits (deadline {@link #DEADLINE_MS}) until a fresh replica of every pool, read over gRPC, holds exactly its
   * worker's live blocks (each pool has one worker here); the workers publish a batch of events before every attempt.
   */
  private static void awaitExact(String label, RelayGrpcClient client, Map<String, Worker> workers)
      throws Exception {
    long start = System.nanoTime();
    long until = start + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    Throwable last = null;
    Map<String, WireReplica> replicas = new HashMap<>();
    Map<String, RelayStream<dev.kvrelay.engine.wire.PoolFrame>> streams = new HashMap<>();
    try {
      while (System.nanoTime() < until) {
        try {
          for (Worker w : workers.values()) {
            w.events(20);
          }
          List<KvPoolDescriptor> pools = awaitCatalog(client, workers.size());
          boolean all = true;
          for (KvPoolDescriptor d : pools) {
            String comp = d.servingEndpoint().component();
            WireReplica r = replicas.get(comp);
            if (r == null || !r.expected.equals(d.producer()) || r.ended != null) {
              RelayStream<dev.kvrelay.engine.wire.PoolFrame> old = streams.remove(comp);
              if (old != null) {
                old.close();
              }
              RelayStream<dev.kvrelay.engine.wire.PoolFrame> s = WireSources.of(client).subscribePool(d.producer().poolId(),
                  d.producer(), "rehearsal-" + comp).get(10, TimeUnit.SECONDS);
              streams.put(comp, s);
              r = new WireReplica(d.producer(), s);
              replicas.put(comp, r);
            }
            Set<Long> model = workers.get(comp).live();
            long frameUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            boolean equal = false;
            while (!equal && System.nanoTime() < frameUntil) {
              r.drain();
              equal = r.installed && holdsExactly(r.words, d.producer().ckfFormat(), model);
              if (!equal) {
                Thread.sleep(20); // polling interval of a condition with a deadline
              }
            }
            all &= equal;
          }
          if (all) {
            System.out.println("REHEARSAL " + label + ": replicas equal the exact model after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
            return;
          }
        } catch (AssertionError | Exception e) {
          last = e;
          replicas.clear();
        }
      }
      throw new AssertionError(label + ": replicas did not reach the exact model in " + DEADLINE_MS + " ms", last);
    } finally {
      for (RelayStream<?> s : streams.values()) {
        s.close();
      }
    }
  }

  private static boolean holdsExactly(long @Nullable [] words, CkfFormat format, Set<Long> canonicals) {
    if (words == null) {
      return false;
    }
    CkfAddressing addressing = CkfAddressing.of(format);
    for (long h : canonicals) {
      long p = addressing.prepare(h);
      int fp = CkfAddressing.fingerprint(p);
      if (!PackedBucket.contains(words[CkfAddressing.bucketA(p)], fp)
          && !PackedBucket.contains(words[CkfAddressing.bucketB(p)], fp)) {
        return false;
      }
    }
    int occupied = 0;
    for (long w : words) {
      occupied += PackedBucket.occupancy(w);
    }
    return occupied == canonicals.size();
  }

  private static void requireTools() {
    for (Path p : List.of(PYTHON, ETCD, ETCDCTL, NATS)) {
      if (!Files.isExecutable(p)) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
          fail("CI=true but " + p + " is missing (apt-get install etcd-server etcd-client nats-server python3-msgpack)");
        }
        assumeTrue(false, p + " not installed; rehearsal skipped");
      }
    }
  }

  private static void requirePythonModule(String module, String pkg) throws Exception {
    Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import " + module).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but python3 cannot import " + module + " (apt-get install " + pkg + ")");
      }
      assumeTrue(false, "python3 " + module + " missing; rehearsal skipped");
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Not thread-safe: confined to the test thread. A real etcd or nats-server on fixed free ports, restartable. */
  static final class Service implements AutoCloseable {
    final List<String> command;
    final Path log;
    final int port;
    @Nullable Process process;

    private Service(List<String> command, Path log, int port) {
      this.command = command;
      this.log = log;
      this.port = port;
    }

    static Service etcd(Path dir) throws Exception {
      Files.createDirectories(dir);
      int client;
      int peer;
      try (ServerSocket c = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
          ServerSocket p = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        client = c.getLocalPort();
        peer = p.getLocalPort();
      }
      String url = "http://127.0.0.1:" + client;
      String peerUrl = "http://127.0.0.1:" + peer;
      Service s = new Service(List.of(ETCD.toString(), "--name", "rehearsal", "--data-dir",
          dir.resolve("data").toString(), "--listen-client-urls", url, "--advertise-client-urls", url,
          "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl, "--initial-cluster",
          "rehearsal=" + peerUrl, "--initial-cluster-state", "new"), dir.resolve("etcd.log"), client);
      s.start();
      return s;
    }

    static Service nats(Path dir) throws Exception {
      Files.createDirectories(dir);
      int port = freePort();
      Service s = new Service(List.of(NATS.toString(), "-a", "127.0.0.1", "-p", Integer.toString(port)),
          dir.resolve("nats.log"), port);
      s.start();
      return s;
    }

    String url() {
      return "http://127.0.0.1:" + port;
    }

    void start() throws Exception {
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        assertThat(process.isAlive()).as("%s alive; log:%n%s", command.get(0), Files.readString(log)).isTrue();
        try (Socket probe = new Socket()) {
          probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
          return;
        } catch (IOException notYet) {
          assertThat(System.nanoTime()).as("%s listening; log:%n%s", command.get(0), Files.readString(log))
              .isLessThan(until);
          Thread.sleep(20); // polling interval of a condition with a deadline
        }
      }
    }

    void kill() throws InterruptedException {
      if (process != null) {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
      }
    }

    @Override
    public void close() throws InterruptedException {
      kill();
    }
  }

  /** Not thread-safe: confined to the test thread. One {@code rehearsal_worker.py} process. */
  static final class Worker implements AutoCloseable {
    private static final java.time.Duration ANSWER = java.time.Duration.ofSeconds(30);
    final LineProcess peer;
    final long instanceId;

    private Worker(List<String> cmd) throws Exception {
      peer = LineProcess.start(cmd, "rehearsal-worker");
      instanceId = Long.parseLong(peer.next("READY ", ANSWER).substring(6));
    }

    /** A worker publishing on {@code plane}: "nats" (to the server on {@code natsPort}) or "zmq" (its own PUB). */
    static Worker start(String etcd, String component, String model, String type, String needs, String lora,
        String plane, int natsPort) throws Exception {
      List<String> cmd = new ArrayList<>(List.of(PYTHON.toString(), WORKER.toString(), etcd, NS, component, model,
          type, needs, lora, plane));
      if (plane.equals("nats")) {
        cmd.addAll(List.of("127.0.0.1", Integer.toString(natsPort)));
      }
      return new Worker(cmd);
    }

    String command(String json, String prefix) throws Exception {
      return peer.request(json, prefix, ANSWER);
    }

    void events(int n) throws Exception {
      command("{\"op\":\"events\",\"count\":" + n + "}", "OK ");
    }

    /** The worker's live tokens hashes: the canonical hashes of its root blocks (the exact model). */
    Set<Long> live() throws Exception {
      String json = command("{\"op\":\"state\"}", "STATE ").substring(6).trim();
      Set<Long> out = new HashSet<>();
      for (JsonValue v : ((JsonArray) Json.parse(json)).elements()) {
        out.add(v instanceof JsonString str ? Long.parseUnsignedLong(str.value()) : ((JsonNumber) v).asUnsignedLong());
      }
      return out;
    }

    @Override
    public void close() throws Exception {
      peer.kill(); // a worker leaves without cleanup: its lease expires
      peer.close();
    }
  }
}
