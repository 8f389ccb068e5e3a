package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryCodec;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server side: an independent Python caller ({@code tcp_caller.py}, written from plugins-wire §1) gets ACKs,
 * call-homes and JSON responses from the relay's endpoints; and this module's caller against its server.
 */
class TcpRequestServerTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  static final DynamoEndpointId HEALTH = new DynamoEndpointId("dynamo", "kv_dc_relay_cfe22161303982bc925df4cbdf6a2e27", "health");
  static final DynamoEndpointId STATS = new DynamoEndpointId("dynamo", "kv_dc_relay_cfe22161303982bc925df4cbdf6a2e27", "stats");
  static final long IID = 0x17216e63492ef21fL;

  @TempDir Path dir;
  TcpRequestServer server;

  @BeforeEach
  void start() throws Exception {
    server = TcpRequestServer.start(TcpRequestServer.Settings.of(TcpRequestPlaneConfig.loopback(), 0));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  static JsonObject json(String text) throws Exception {
    return (JsonObject) Json.parse(text);
  }

  @Test
  void aPythonCallerGetsAcksCallHomesAndJsonResponses() throws Exception {
    List<JsonValue> seen = new ArrayList<>();
    String health = server.register(HEALTH, IID, request -> {
      synchronized (seen) {
        seen.add(request);
      }
      return List.of(json("{\"healthy\":true,\"endpoint_count\":2}"));
    });
    String stats = server.register(STATS, IID, request -> {
      throw new IllegalStateException("stats are not built into this relay");
    });
    assertThat(health).isEqualTo(server.hostPort() + "/17216e63492ef21f/dynamo/kv_dc_relay_cfe22161303982bc925df4cbdf6a2e27/health");
    String healthPath = TcpEndpointPaths.parse(health).endpointPath();
    String statsPath = TcpEndpointPaths.parse(stats).endpointPath();
    List<String> results;
    try (PythonPeer caller = PythonPeer.start("tcp_caller.py", dir, server.hostPort(),
        healthPath, "{\"text\":\"health\"}", statsPath, "{}", "17216e63492ef21f/dynamo/nope/health", "{}",
        healthPath, "{\"text\":\"again\"}")) {
      caller.await("DONE", WAIT);
      results = caller.lines().stream().filter(l -> l.startsWith("RESULT ")).map(l -> l.substring(7)).toList();
    }
    assertThat(results).hasSize(4);
    JsonObject first = json(results.get(0));
    assertThat(first.get("ack")).isEqualTo(Json.parse("\"\""));
    assertThat(first.get("handshake")).isEqualTo(Json.parse("{\"subject\":" + Json.write(first.get("subject"))
        + ",\"stream_type\":\"response\"}"));
    assertThat(first.get("handshake_header_only")).isEqualTo(Json.parse("true"));
    assertThat(first.get("prologue")).isEqualTo(Json.parse("{\"error\":null}"));
    assertThat(first.get("prologue_header_only")).isEqualTo(Json.parse("true"));
    assertThat(first.get("items")).isEqualTo(Json.parse(
        "[{\"data\":{\"healthy\":true,\"endpoint_count\":2},\"complete_final\":false},{\"complete_final\":true}]"));
    assertThat(first.get("item_frames")).isEqualTo(Json.parse("[\"data\",\"data\"]"));
    assertThat(first.get("sentinel")).isEqualTo(Json.parse("\"sentinel\""));
    assertThat(first.get("sentinel_has_data")).isEqualTo(Json.parse("false"));
    JsonObject failed = json(results.get(1));
    assertThat(failed.get("ack")).isEqualTo(Json.parse("\"\""));
    assertThat(failed.get("prologue")).isEqualTo(Json.parse("{\"error\":\"stats are not built into this relay\"}"));
    assertThat(failed.get("items")).isEqualTo(Json.parse("[]"));
    JsonObject unknown = json(results.get(2));
    assertThat(unknown.get("ack")).isEqualTo(Json.parse(
        "\"Server unavailable: unknown endpoint 17216e63492ef21f/dynamo/nope/health\""));
    assertThat(json(results.get(3)).get("items")).isEqualTo(first.get("items"));
    assertThat(seen).containsExactlyInAnyOrder(Json.parse("{\"text\":\"health\"}"), Json.parse("{\"text\":\"again\"}"));
    assertThat(server.counters().get(ServerCounter.REQUESTS)).isEqualTo(4);
    assertThat(server.counters().get(ServerCounter.UNKNOWN_ENDPOINTS)).isEqualTo(1);
    assertThat(server.counters().get(ServerCounter.ERROR_PROLOGUES)).isEqualTo(1);
    assertThat(server.counters().get(ServerCounter.STREAMS_COMPLETED)).isEqualTo(2);
  }

  @Test
  void badRequestsGetADecodeErrorAckOrAnErrorPrologueAndReachNoHandler() throws Exception {
    List<JsonValue> seen = new ArrayList<>();
    String path = TcpEndpointPaths.parse(server.register(HEALTH, IID, request -> {
      synchronized (seen) {
        seen.add(request);
      }
      return List.of(json("{}"));
    })).endpointPath();
    List<String> results;
    try (PythonPeer caller = PythonPeer.start("tcp_caller.py", dir, server.hostPort(),
        path, "!badcontext {\"text\":\"health\"}", path, "!msgpack {}", path, "!empty")) {
      caller.await("DONE", WAIT);
      results = caller.lines().stream().filter(l -> l.startsWith("RESULT ")).map(l -> l.substring(7)).toList();
    }
    assertThat(results).hasSize(3);
    JsonObject badContext = json(results.get(0));
    assertThat(badContext.get("ack")).isEqualTo(Json.parse("\"\""));
    assertThat(Json.write(badContext.get("prologue"))).startsWith("{\"error\":\"Invalid context: ");
    assertThat(json(results.get(1)).get("ack")).isEqualTo(Json.parse(
        "\"Decode error: payload codec 'msgpack' is not supported (this endpoint speaks json)\""));
    assertThat(json(results.get(2)).get("prologue")).isEqualTo(Json.parse(
        "{\"error\":\"unary engine received a header-only envelope\"}"));
    assertThat(seen).isEmpty();
    assertThat(server.counters().get(ServerCounter.DECODE_ERRORS)).isEqualTo(1);
    assertThat(server.counters().get(ServerCounter.ERROR_PROLOGUES)).isEqualTo(2);
  }

  @Test
  void thisModulesCallerQueriesThisModulesServer() throws Exception {
    DynamoEndpointId query = new DynamoEndpointId("dynamo", "backend", "worker_kv_indexer_query_dp1");
    String transport = server.register(query, IID, request -> {
      WorkerKvQueryRequest r = WorkerKvQueryCodec.decodeRequest(request);
      return List.of(WorkerKvQueryCodec.responseJson(new WorkerKvQueryResponse.Events(List.of(), r.startEventId().orElse(0))));
    });
    try (TcpRequestPlaneClient client = TcpRequestPlaneClient.open(TcpRequestPlaneConfig.loopback())) {
      RecoveryTarget target = new RecoveryTarget(query, IID, TransportAddress.tcp(transport));
      WorkerKvQueryResponse r = client.query(target, WorkerKvQueryRequest.incremental(IID, 1, 77), Duration.ofSeconds(10))
          .toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(r).isEqualTo(new WorkerKvQueryResponse.Events(List.of(), 77));
      // the caller closes its write side after the sentinel: the server sees the FIN, not a 10 s timeout
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (server.counters().get(ServerCounter.STREAMS_COMPLETED) == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(server.counters().get(ServerCounter.STREAMS_COMPLETED)).isEqualTo(1);
      assertThat(server.counters().get(ServerCounter.FIN_TIMEOUTS)).isZero();
    }
  }

  @Test
  void aFullServerAcksOverloadedAndTheCallerRejects() throws Exception {
    server.close();
    server = TcpRequestServer.start(new TcpRequestServer.Settings(TcpRequestPlaneConfig.loopback().responseHost(), 0,
        1 << 20, Duration.ofSeconds(5), 1, 1));
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch running = new CountDownLatch(1);
    DynamoEndpointId query = new DynamoEndpointId("dynamo", "backend", "worker_kv_indexer_query_dp0");
    String transport = server.register(query, IID, request -> {
      running.countDown();
      release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
      return List.of(WorkerKvQueryCodec.responseJson(new WorkerKvQueryResponse.Error("late")));
    });
    try (TcpRequestPlaneClient client = TcpRequestPlaneClient.open(TcpRequestPlaneConfig.loopback())) {
      RecoveryTarget target = new RecoveryTarget(query, IID, TransportAddress.tcp(transport));
      CompletableFuture<WorkerKvQueryResponse> busy =
          client.query(target, WorkerKvQueryRequest.fullRestore(IID, 0), Duration.ofSeconds(20)).toCompletableFuture();
      assertThat(running.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      CompletableFuture<WorkerKvQueryResponse> queued =
          client.query(target, WorkerKvQueryRequest.fullRestore(IID, 0), Duration.ofSeconds(20)).toCompletableFuture();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (server.counters().get(ServerCounter.ACCEPTED) < 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      CompletableFuture<WorkerKvQueryResponse> refused =
          client.query(target, WorkerKvQueryRequest.fullRestore(IID, 0), Duration.ofSeconds(20)).toCompletableFuture();
      try {
        refused.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        throw new AssertionError("expected a rejection");
      } catch (ExecutionException e) {
        RequestPlaneException rpe = (RequestPlaneException) e.getCause();
        assertThat(rpe.kind()).isEqualTo(RequestPlaneException.Kind.REJECTED);
        assertThat(rpe.getMessage()).isEqualTo("Server overloaded: worker at capacity");
      }
      release.countDown();
      assertThat(busy.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new WorkerKvQueryResponse.Error("late"));
      assertThat(queued.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new WorkerKvQueryResponse.Error("late"));
      assertThat(server.counters().get(ServerCounter.OVERLOADED)).isEqualTo(1);
      assertThat(client.counters().get(ClientCounter.REJECTED_OVERLOADED)).isEqualTo(1);
    }
  }
}
