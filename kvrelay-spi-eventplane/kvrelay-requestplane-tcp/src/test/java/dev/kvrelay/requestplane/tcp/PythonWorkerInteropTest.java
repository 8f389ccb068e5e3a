package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The caller against an independent Python worker ({@code tcp_worker.py}, written from plugins-wire §1): real
 * sockets on loopback, one worker process for the class, its behaviour switched per test ({@code MODE}).
 */
class PythonWorkerInteropTest {
  static final long W = Long.parseUnsignedLong("7587891234567890123");
  static final DynamoEndpointId QUERY_EP = new DynamoEndpointId("dynamo", "backend", "worker_kv_indexer_query_dp0");
  static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir static Path dir;
  static PythonPeer worker;
  static int port;
  TcpRequestPlaneClient client;

  @BeforeAll
  static void startWorker() throws Exception {
    worker = PythonPeer.start("tcp_worker.py", dir);
    port = Integer.parseInt(worker.await("PORT ", WAIT).substring(5).trim());
  }

  @AfterAll
  static void stopWorker() throws Exception {
    if (worker != null) {
      worker.close();
    }
  }

  @BeforeEach
  void openClient() throws Exception {
    client = TcpRequestPlaneClient.open(TcpRequestPlaneConfig.loopback()
        .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2)));
    mode("normal");
  }

  @AfterEach
  void closeClient() {
    client.close();
    assertThat(worker.lines()).noneMatch(l -> l.startsWith("VIOLATION"));
  }

  static void mode(String m) throws Exception {
    int mark = worker.mark();
    worker.send("MODE " + m);
    worker.await(mark, l -> l.equals("MODE-OK " + m), WAIT, "MODE-OK " + m);
  }

  static RecoveryTarget target() {
    return target0(port);
  }

  /** The query endpoint of worker {@link #W} on a Python worker at {@code port}. */
  static RecoveryTarget target0(int port) {
    return new RecoveryTarget(QUERY_EP, W, TransportAddress.tcp("127.0.0.1:" + port + "/" + TcpEndpointPaths.instancePath(QUERY_EP, W)));
  }

  static RouterEvent stored(long id, OptionalLong parent, long hash, long tokens) {
    return new RouterEvent(W, StorageTier.DEVICE, ResidencyDomain.WORKER, id, 0,
        new KvEventData.Stored(parent, OptionalLong.empty(), List.of(StoredBlock.of(hash, tokens))));
  }

  static final long H0 = Long.parseUnsignedLong("9876543210987654321");
  static final long T0 = Long.parseUnsignedLong("14643705804678351452");

  WorkerKvQueryResponse answer(WorkerKvQueryRequest r) throws Exception {
    return client.query(target(), r, Duration.ofSeconds(10)).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  static RequestPlaneException failure(CompletionStage<WorkerKvQueryResponse> stage) throws Exception {
    try {
      WorkerKvQueryResponse r = stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      return fail("expected a RequestPlaneException, got " + r);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(RequestPlaneException.class);
      return (RequestPlaneException) e.getCause();
    }
  }

  RequestPlaneException failure(WorkerKvQueryRequest r, Duration timeout) throws Exception {
    return failure(client.query(target(), r, timeout));
  }

  // ------------------------------------------------------------------ answers from the worker's state

  @Test
  void incrementalQueryGetsTheLoggedEvents() throws Exception {
    int mark = worker.mark();
    assertThat(answer(WorkerKvQueryRequest.incremental(W, 0, 41))).isEqualTo(new WorkerKvQueryResponse.Events(List.of(
        stored(41, OptionalLong.of(H0), -1L, 5), stored(42, OptionalLong.of(-1L), 42, 43)), 42));
    String req = worker.await(mark, l -> l.startsWith("REQUEST "), WAIT, "REQUEST");
    // the worker saw the verbatim instance path, the JSON body of the request and the tcp_server connection info
    assertThat(req).contains("\"path\":\"" + Long.toHexString(W) + "/dynamo/backend/worker_kv_indexer_query_dp0\"")
        .contains("\"body\":{\"worker_id\":7587891234567890123,\"dp_rank\":0,\"start_event_id\":41,\"end_event_id\":null,"
            + "\"supports_tree_dump_failed\":true,\"kind\":\"recovery\"}")
        .contains("\"address\":\"" + client.responseAddress() + "\"");
    worker.await(mark, l -> l.equals("FIN"), WAIT, "the caller's FIN after the sentinel");
    assertThat(client.counters().get(ClientCounter.ANSWERS)).isEqualTo(1);
    assertThat(client.counters().get(ClientCounter.ACKS_ACCEPTED)).isEqualTo(1);
  }

  @Test
  void fullRestoreGetsATreeDump() throws Exception {
    assertThat(answer(WorkerKvQueryRequest.fullRestore(W, 0))).isEqualTo(new WorkerKvQueryResponse.TreeDump(List.of(
        stored(0, OptionalLong.empty(), H0, T0), stored(1, OptionalLong.of(H0), -1L, 5),
        stored(2, OptionalLong.of(-1L), 42, 43)), 42, "all"));
  }

  @Test
  void treeDumpFailedTooNewAndErrorArriveAsAnswers() throws Exception {
    assertThat(answer(WorkerKvQueryRequest.incremental(W, 0, 50)))
        .isEqualTo(new WorkerKvQueryResponse.TooNew(OptionalLong.of(50), OptionalLong.empty(), 42));
    assertThat(answer(WorkerKvQueryRequest.fullRestore(W + 1, 0)))
        .isEqualTo(new WorkerKvQueryResponse.Error("unknown worker " + (W + 1) + " rank 0"));
    mode("tree_dump_failed");
    assertThat(answer(WorkerKvQueryRequest.fullRestore(W, 0)))
        .isEqualTo(new WorkerKvQueryResponse.TreeDumpFailed(42, "tree dump already running"));
  }

  @Test
  void aWorkerThatCallsHomeBeforeItsAckIsServed() throws Exception {
    mode("call_home_first");
    assertThat(answer(WorkerKvQueryRequest.incremental(W, 0, 42)))
        .isEqualTo(new WorkerKvQueryResponse.Events(List.of(stored(42, OptionalLong.of(-1L), 42, 43)), 42));
  }

  @Test
  void concurrentQueriesArePipelinedOnPooledConnections() throws Exception {
    List<CompletableFuture<WorkerKvQueryResponse>> fs = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      fs.add(client.query(target(), WorkerKvQueryRequest.incremental(W, 0, 40 + i % 3), Duration.ofSeconds(15))
          .toCompletableFuture());
    }
    for (int i = 0; i < 24; i++) {
      WorkerKvQueryResponse r = fs.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(((WorkerKvQueryResponse.Events) r).events()).hasSize(3 - i % 3);
    }
    assertThat(client.counters().get(ClientCounter.CONNECTIONS_OPENED)).isBetween(1L, 4L);
    assertThat(client.counters().get(ClientCounter.ANSWERS)).isEqualTo(24);
  }

  // ------------------------------------------------------------------ ACK rejections

  @Test
  void overloadedAckIsRejected() throws Exception {
    mode("overloaded");
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.REJECTED);
    assertThat(e.getMessage()).isEqualTo("Server overloaded: worker at capacity");
    assertThat(client.counters().get(ClientCounter.REJECTED_OVERLOADED)).isEqualTo(1);
  }

  @Test
  void unavailableAckIsRejected() throws Exception {
    mode("unavailable");
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.REJECTED);
    assertThat(e.getMessage()).startsWith("Server unavailable: unknown endpoint ");
    assertThat(client.counters().get(ClientCounter.REJECTED_UNAVAILABLE)).isEqualTo(1);
  }

  @Test
  void anyOtherNonEmptyAckIsAFailure() throws Exception {
    // plugins-wire §1.6 recommendation (pinned): not read as success, failed at once as PROTOCOL
    mode("other_ack");
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("Read error: unexpected end of file");
    assertThat(client.counters().get(ClientCounter.REJECTED_OTHER_ACK)).isEqualTo(1);
  }

  @Test
  void aMissingAckTimesOutAfterTheRequestTimeout() throws Exception {
    mode("silent_ack");
    long start = System.nanoTime();
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(15));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.TIMEOUT);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofSeconds(2).toNanos());
    assertThat(client.counters().get(ClientCounter.ACK_TIMEOUTS)).isEqualTo(1);
  }

  // ------------------------------------------------------------------ response-stream failures

  @Test
  void aWorkerThatNeverCallsHomeTimesOut() throws Exception {
    mode("never_call_home");
    int mark = worker.mark();
    Duration timeout = Duration.ofMillis(1500);
    long start = System.nanoTime();
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), timeout);
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.TIMEOUT);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(timeout.toNanos());
    assertThat(worker.await(mark, l -> l.startsWith("REQUEST "), WAIT, "REQUEST")).contains("\"mode\":\"never_call_home\"");
    assertThat(client.counters().get(ClientCounter.QUERY_TIMEOUTS)).isEqualTo(1);
    assertThat(client.counters().get(ClientCounter.CALL_HOMES)).isZero();
  }

  @Test
  void aPrologueErrorFailsWithItsText() throws Exception {
    mode("prologue_error");
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.REJECTED);
    assertThat(e.getMessage()).isEqualTo("worker error: engine failed: no indexer for this rank");
    assertThat(client.counters().get(ClientCounter.PROLOGUE_ERRORS)).isEqualTo(1);
  }

  @Test
  void aPrologueWithDataIsMalformedAndKilled() throws Exception {
    mode("malformed_prologue");
    int mark = worker.mark();
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.PROTOCOL);
    assertThat(e.getMessage()).startsWith("malformed prologue");
    worker.await(mark, l -> l.equals("CONTROL kill"), WAIT, "kill");
    assertThat(client.counters().get(ClientCounter.PROTOCOL_VIOLATIONS)).isEqualTo(1);
  }

  @Test
  void aStreamCutBeforeCompleteFinalFails() throws Exception {
    mode("cut_stream");
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.PROTOCOL);
    assertThat(e.getMessage()).startsWith("Stream ended before generation completed");
    assertThat(client.counters().get(ClientCounter.STREAMS_CUT)).isEqualTo(1);
  }

  @Test
  void anOversizeFrameFailsWithoutReadingItAndIsKilled() throws Exception {
    mode("oversize");
    int mark = worker.mark();
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.PROTOCOL);
    assertThat(e.getMessage()).contains("exceeds the limit of 33554432 bytes");
    worker.await(mark, l -> l.equals("CONTROL kill"), WAIT, "kill");
    assertThat(client.counters().get(ClientCounter.OVERSIZE_FRAMES)).isEqualTo(1);
  }

  @Test
  void aQueryTimeoutKillsTheStream() throws Exception {
    mode("slow_stream");
    int mark = worker.mark();
    // long enough for the call-home to attach on a loaded machine; then the timeout must kill the stream
    RequestPlaneException e = failure(WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(3));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.TIMEOUT);
    assertThat(client.counters().get(ClientCounter.STREAMS_ATTACHED)).isEqualTo(1);
    worker.await(mark, l -> l.equals("CONTROL kill"), WAIT, "kill after the timeout");
  }

  @Test
  void cancellingAQuerySendsStop() throws Exception {
    mode("slow_stream");
    int mark = worker.mark();
    CompletableFuture<WorkerKvQueryResponse> f =
        client.query(target(), WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(30)).toCompletableFuture();
    // cancel only once the stream is attached (the handshake was read): then stop goes out on it
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (client.counters().get(ClientCounter.STREAMS_ATTACHED) == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(client.counters().get(ClientCounter.STREAMS_ATTACHED)).isEqualTo(1);
    f.cancel(true);
    worker.await(mark, l -> l.equals("CONTROL stop"), WAIT, "stop after cancel");
    worker.await(mark, l -> l.equals("FIN"), WAIT, "FIN after stop");
    assertThat(client.counters().get(ClientCounter.CANCELLED)).isEqualTo(1);
  }

  @Test
  void aClosedPortIsUnreachable() throws Exception {
    int free;
    try (ServerSocket s = new ServerSocket(0)) {
      free = s.getLocalPort();
    }
    RecoveryTarget gone = new RecoveryTarget(QUERY_EP, W, TransportAddress.tcp("127.0.0.1:" + free + "/x"));
    RequestPlaneException e = failure(client.query(gone, WorkerKvQueryRequest.fullRestore(W, 0), Duration.ofSeconds(10)));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.UNREACHABLE);
    assertThat(client.counters().get(ClientCounter.CONNECT_FAILURES)).isEqualTo(1);
  }
}
