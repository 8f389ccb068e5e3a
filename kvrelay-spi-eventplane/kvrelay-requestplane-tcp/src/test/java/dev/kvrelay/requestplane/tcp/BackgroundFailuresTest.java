package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryCodec;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.io.BufferedInputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failures of the client's background tasks are counted, provoked for real: a fake worker (a raw server socket)
 * that cuts its ACK mid-reply or sends an ACK nobody asked for, a refused connect, a timer task that throws; and
 * the client's own close of a request connection is not counted as a reader failure.
 */
class BackgroundFailuresTest {
  static final Duration WAIT = Duration.ofSeconds(20);
  static final long W = 42;
  static final DynamoEndpointId QUERY_EP = new DynamoEndpointId("dynamo", "backend", "worker_kv_indexer_query_dp0");

  TcpRequestPlaneClient client;
  ServerSocket worker;

  @BeforeEach
  void open() throws Exception {
    // ACK and connect timeouts far beyond any wait here: a loaded machine never turns a cut reply into a timeout
    client = TcpRequestPlaneClient.open(TcpRequestPlaneConfig.loopback().withTimeouts(WAIT, WAIT));
    worker = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
  }

  @AfterEach
  void close() throws Exception {
    client.close();
    worker.close();
  }

  /** Serves one connection on a daemon thread: reads one request frame, then runs {@code reply}. */
  private CompletableFuture<RequestFrame> serveOnce(Reply reply) {
    CompletableFuture<RequestFrame> seen = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try (Socket s = worker.accept()) {
        RequestFrame f = RequestFrame.read(new BufferedInputStream(s.getInputStream()), 1 << 20);
        seen.complete(f);
        reply.write(s.getOutputStream());
      } catch (Exception e) {
        seen.completeExceptionally(e);
      }
    }, "fake-worker");
    t.setDaemon(true);
    t.start();
    return seen;
  }

  /** Not thread-safe: confined to the fake worker's thread: what it writes after reading the request. */
  interface Reply {
    void write(OutputStream out) throws Exception;
  }

  private RecoveryTarget target(int port) {
    return new RecoveryTarget(QUERY_EP, W, TransportAddress.tcp("127.0.0.1:" + port + "/x"));
  }

  private static RequestPlaneException failure(CompletionStage<WorkerKvQueryResponse> f) throws Exception {
    try {
      WorkerKvQueryResponse r = f.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + r);
    } catch (ExecutionException e) {
      return (RequestPlaneException) e.getCause();
    }
  }

  private void awaitCounter(ClientCounter c, long value) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (client.counters().get(c) < value && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(client.counters().get(c)).as(c.name()).isEqualTo(value);
  }

  @Test
  void anAckCutMidReplyIsAReaderFailureAndItsQueryIsLost() throws Exception {
    CompletableFuture<RequestFrame> seen = serveOnce(out -> {
      out.write(new byte[] {0, 0, 0, 10, 'S', 'e', 'r'}); // an ACK of 10 bytes, 3 of them sent
      out.flush();
    }); // then the socket closes: the reader sees the stream end inside the ACK
    RequestPlaneException e = failure(client.query(target(worker.getLocalPort()), WorkerKvQueryRequest.fullRestore(W, 0),
        WAIT));
    assertThat(seen.get(WAIT.toSeconds(), TimeUnit.SECONDS).endpointPath()).isEqualTo("x");
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.UNREACHABLE);
    assertThat(e.getMessage()).contains("lost before the ACK");
    assertThat(client.counters().get(ClientCounter.READER_FAILURES)).isEqualTo(1);
    assertThat(client.counters().get(ClientCounter.CONNECTIONS_LOST)).isEqualTo(1);
    assertThat(client.counters().get(ClientCounter.BACKGROUND_TASK_FAILURES)).isZero();
  }

  @Test
  void anAckWithNoRequestOutstandingIsAReaderFailure() throws Exception {
    CompletableFuture<RequestFrame> seen = serveOnce(out -> {
      out.write(AckFrame.encode("")); // accepts the request ...
      out.write(AckFrame.encode("")); // ... and acks one that was never sent
      out.flush();
    });
    CompletionStage<WorkerKvQueryResponse> q = client.query(target(worker.getLocalPort()),
        WorkerKvQueryRequest.fullRestore(W, 0), WAIT);
    seen.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    awaitCounter(ClientCounter.READER_FAILURES, 1);
    assertThat(client.counters().get(ClientCounter.ACKS_ACCEPTED)).isEqualTo(1);
    // the accepted query still waits for its call-home (it no longer needs the connection)
    assertThat(q.toCompletableFuture()).isNotDone();
  }

  @Test
  void aRefusedConnectIsCounted() throws Exception {
    int free;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      free = s.getLocalPort();
    }
    RequestPlaneException e = failure(client.query(target(free), WorkerKvQueryRequest.fullRestore(W, 0), WAIT));
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.UNREACHABLE);
    assertThat(client.counters().get(ClientCounter.CONNECT_ATTEMPTS_FAILED)).isEqualTo(1);
    assertThat(client.counters().get(ClientCounter.CONNECT_FAILURES)).isEqualTo(1);
  }

  @Test
  void aTimerTaskThatThrowsIsCountedNotSwallowed() throws Exception {
    ClientContext ctx = client.context();
    ScheduledFuture<?> unused = ctx.timers.schedule(ctx.guarded("provoked", () -> {
      throw new IllegalStateException("provoked timer failure");
    }), 0, TimeUnit.MILLISECONDS);
    awaitCounter(ClientCounter.BACKGROUND_TASK_FAILURES, 1);
  }

  @Test
  void theClientsOwnCloseIsNotAReaderFailure() throws Exception {
    TcpRequestServer server = TcpRequestServer.start(TcpRequestServer.Settings.of(TcpRequestPlaneConfig.loopback(), 0));
    try {
      String transport = server.register(QUERY_EP, W, request -> List.of(WorkerKvQueryCodec.responseJson(
          new WorkerKvQueryResponse.Events(List.of(), 5))));
      WorkerKvQueryResponse r = client.query(new RecoveryTarget(QUERY_EP, W, TransportAddress.tcp(transport)),
          WorkerKvQueryRequest.incremental(W, 0, 5), WAIT).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(r).isEqualTo(new WorkerKvQueryResponse.Events(List.of(), 5));
      assertThat(client.counters().get(ClientCounter.CONNECTIONS_OPENED)).isEqualTo(1);
      client.close(); // closes the pooled connection under its blocked ACK reader
      // every background task has ended once the I/O pool terminates: the reader has seen its socket closed
      assertThat(client.context().io.awaitTermination(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(client.counters().get(ClientCounter.READER_FAILURES)).isZero();
      assertThat(client.counters().get(ClientCounter.BACKGROUND_TASK_FAILURES)).isZero();
      assertThat(client.counters().get(ClientCounter.LISTENER_FAILURES)).isZero();
    } finally {
      server.close();
    }
  }
}
