package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.engine.EngineFaults;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.launcher.cli.RuntimeEnvironment;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Timeout;

/** The stock relay's lifecycle in process (producer.md §7.6): start, stop request, terminal failure, order. */
@Timeout(60)
class StockRelayTest {
  private static final Map<String, String> MEM = Map.of("DYN_DISCOVERY_BACKEND", "mem", "DYN_EVENT_PLANE", "mem",
      "DYN_REQUEST_PLANE", "mem");

  private static OpenPlugins mem() throws StartException {
    return OpenPlugins.open(RuntimeEnvironment.from(MEM), PluginRegistries.load());
  }

  private static RelayEngineConfig config(String bind) throws Exception {
    return RelayEngineConfig.builder().dcId("dc-a").watchAll(true).bind(bind).build();
  }

  @Test
  void aStopRequestEndsAwaitCleanlyAndCloseStopsAttachedResourcesBeforeTheServer() throws Exception {
    List<String> seenAtClose = new ArrayList<>();
    StockRelay relay = StockRelay.start(config("127.0.0.1:0"), mem(), 2);
    try {
      RelayGrpcServer server = relay.grpcServer().orElseThrow();
      assertThat(server.healthStatus(RelayGrpcServer.SERVICE_NAME)).isEqualTo(ServingStatus.SERVING);
      assertThat(relay.boundAddress()).hasValue("127.0.0.1:" + server.port());
      relay.attach(() -> seenAtClose.add("first " + server.healthStatus(RelayGrpcServer.SERVICE_NAME)));
      relay.attach(() -> seenAtClose.add("second " + server.healthStatus(RelayGrpcServer.SERVICE_NAME)));
      CompletableFuture<StockRelay.Ended> ended = CompletableFuture.supplyAsync(() -> {
        try {
          return relay.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      assertThat(ended).as("runs until asked to stop").isNotDone();
      relay.requestStop("test");
      relay.requestStop("ignored: the first request wins");
      StockRelay.Ended e = ended.get(10, TimeUnit.SECONDS);
      assertThat(e.clean()).isTrue();
      assertThat(e.stopReason()).isEqualTo("test");
    } finally {
      relay.close();
    }
    assertThat(seenAtClose).as("attached resources close first, last attached first, while still SERVING")
        .containsExactly("second SERVING", "first SERVING");
    assertThat(relay.grpcServer().orElseThrow().terminated()).isCompleted();
    assertThat(relay.engine().terminated()).isCompleted();
    assertThat(relay.outcome().clean()).isTrue();
  }

  @Test
  void aTerminalHostFailureEndsAwaitWithTheFailure() throws Exception {
    try (StockRelay relay = StockRelay.start(config("127.0.0.1:0"), mem(), 2)) {
      EngineFaults.failHost(relay.engine(), new IllegalStateException("load window publisher failed"));
      StockRelay.Ended e = relay.await();
      assertThat(e.clean()).isFalse();
      assertThat(e.failure()).hasMessageContaining("load window publisher failed");
    }
  }

  @Test
  void anAddressThatCannotBeBoundIsAStartError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      assertThatThrownBy(() -> StockRelay.start(config("127.0.0.1:" + taken.getLocalPort()), mem(), 2))
          .isInstanceOf(StartException.class)
          .hasMessageStartingWith("cannot serve on 127.0.0.1:" + taken.getLocalPort() + ": ");
    }
  }

  @Test
  void withoutABindTheRelayRunsWithTheWanOff() throws Exception {
    RelayEngineConfig noWan = RelayEngineConfig.builder().dcId("dc-a").watchAll(true).build();
    try (StockRelay relay = StockRelay.start(noWan, mem(), 2)) {
      assertThat(relay.grpcServer()).isEmpty();
      assertThat(relay.boundAddress()).isEmpty();
      relay.requestStop("test");
      assertThat(relay.await().clean()).isTrue();
    }
  }

  @Test
  void mainExits1OnATerminalFailureOfTheRunningRelay() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Main.run(new String[] {"--dc-id", "dc-a", "--bind", "127.0.0.1:0"}, MEM,
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
        new StopRequest(), PluginRegistries.load(), new Main.Hooks(
            relay -> EngineFaults.failHost(relay.engine(), new IllegalStateException("host failed")), demo -> { }));
    assertThat(status).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("kvrelay: the relay ended on its own: ")
        .contains("host failed");
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("kvrelay: stopped");
  }

  @Test
  void aStopRequestedBeforeTheRelayRunsIsDeliveredWhenItStarts() {
    StopRequest stop = new StopRequest();
    stop.request("SIGTERM");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Main.run(new String[] {"--dc-id", "dc-a"}, MEM, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), stop, PluginRegistries.load());
    assertThat(status).as("stderr %s", err).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8).lines().toList())
        .containsExactly("kvrelay: running dc-a (WAN off: no --bind or DYN_RELAY_BIND)", "kvrelay: stopped");
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("kvrelay: stopping on SIGTERM");
  }

  @Test
  void fileModeWatchesTheSourcesDocumentsNamespacesAndEngineStateReportsItsRevision(@TempDir Path dir)
      throws Exception {
    Path sources = dir.resolve("sources.json");
    // producer §8.2: the document's connectionRevision must match DYN_RELAY_CONNECTION_REVISION
    java.nio.file.Files.writeString(sources,
        "{\"version\":1,\"connectionRevision\":\"rev-7\",\"sources\":[{\"namespace\":\"prod\"}]}");
    Map<String, String> env = new java.util.HashMap<>(MEM);
    env.put("DYN_SYSTEM_PORT", "0");
    env.put("DYN_SYSTEM_HOST", "127.0.0.1");
    env.put("DYN_RELAY_CONNECTION_REVISION", "rev-7");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    StopRequest stop = new StopRequest();
    java.util.concurrent.CompletableFuture<Integer> status = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> Main.run(new String[] {"--dc-id", "dc-a", "--sources-file", sources.toString()}, env,
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
            stop, PluginRegistries.load()));
    java.util.regex.Pattern line = java.util.regex.Pattern.compile("kvrelay: system server on 127\\.0\\.0\\.1:(\\d+) ");
    long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    java.util.regex.Matcher m = line.matcher("");
    while (!(m = line.matcher(out.toString(StandardCharsets.UTF_8))).find()) {
      assertThat(status).as("still running; stderr %s", err).isNotDone();
      assertThat(System.nanoTime()).as("system server line within 30 s; stderr %s", err).isLessThan(until);
      Thread.sleep(10); // polling interval of a condition with a deadline
    }
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String state = http.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + m.group(1) + "/engine/state")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(state);
    assertThat(json.get("mode").asText()).as(state).isEqualTo("from-file");
    assertThat(json.get("connectionRevision").asText()).isEqualTo("rev-7");
    assertThat(json.get("sources").get("count").asInt()).as(state).isEqualTo(1);
    assertThat(json.get("sources").get("appliedRevision").isTextual()).as(state).isTrue();
    assertThat(json.get("sources").get("appliedRevision").asText())
        .isEqualTo(json.get("sources").get("desiredRevision").asText());
    stop.request("test");
    assertThat(status.get(30, java.util.concurrent.TimeUnit.SECONDS)).as("stderr %s", err).isZero();
  }

  @Test
  void fileModeWithoutAReadableSourcesDocumentIsAStartError(@TempDir Path dir) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Main.run(new String[] {"--dc-id", "dc-a", "--sources-file", dir.resolve("absent.json").toString()},
        MEM, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), new StopRequest(), PluginRegistries.load());
    assertThat(status).as("stderr %s", err).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("kvrelay: ").contains("sources");
  }
}
