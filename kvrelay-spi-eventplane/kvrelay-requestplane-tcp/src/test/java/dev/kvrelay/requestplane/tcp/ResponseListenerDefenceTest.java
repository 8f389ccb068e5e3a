package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The response listener and target checks against bad input from raw sockets: a call-home naming no pending
 * subject and one whose first frame is not a header-only handshake are closed and counted; a target that is not
 * a TCP address fails typed before anything is sent.
 */
class ResponseListenerDefenceTest {
  static final Duration WAIT = Duration.ofSeconds(20);
  TcpRequestPlaneClient client;

  @BeforeEach
  void open() throws Exception {
    client = TcpRequestPlaneClient.open(TcpRequestPlaneConfig.loopback().withHandshakeTimeout(Duration.ofMillis(500)));
  }

  @AfterEach
  void close() {
    client.close();
  }

  private Socket dialListener() throws Exception {
    TcpEndpointPaths.Address a = TcpEndpointPaths.parse(client.responseAddress() + "/");
    Socket s = new Socket(a.host(), a.port());
    s.setSoTimeout((int) WAIT.toMillis());
    return s;
  }

  /** Reads until the listener closes the socket (EOF or reset); fails on any byte it sends. */
  private static void assertClosedWithoutReply(Socket s) throws Exception {
    InputStream in = s.getInputStream();
    try {
      assertThat(in.read()).isEqualTo(-1);
    } catch (java.net.SocketException reset) {
      // SO_LINGER(0) on the listener side: a close may arrive as a reset
    }
  }

  private void awaitCounter(ClientCounter c) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (client.counters().get(c) == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(client.counters().get(c)).isEqualTo(1);
  }

  @Test
  void aCallHomeForAnUnknownSubjectIsClosed() throws Exception {
    try (Socket s = dialListener()) {
      OutputStream out = s.getOutputStream();
      out.write(TwoPart.headerOnly(ControlJson.handshake("00000000-0000-0000-0000-000000000000")).encode());
      out.flush();
      assertClosedWithoutReply(s);
    }
    awaitCounter(ClientCounter.UNKNOWN_SUBJECTS);
  }

  @Test
  void aFirstFrameThatIsNotAHeaderOnlyHandshakeIsClosed() throws Exception {
    try (Socket s = dialListener()) {
      OutputStream out = s.getOutputStream();
      out.write(TwoPart.dataOnly(ControlJson.handshake("x")).encode());
      out.flush();
      assertClosedWithoutReply(s);
    }
    awaitCounter(ClientCounter.BAD_HANDSHAKES);
  }

  @Test
  void aCallHomeThatSendsNothingIsClosedAfterTheHandshakeTimeout() throws Exception {
    long start = System.nanoTime();
    try (Socket s = dialListener()) {
      assertClosedWithoutReply(s);
    }
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(500).toNanos());
    awaitCounter(ClientCounter.BAD_HANDSHAKES);
  }

  @Test
  void targetsThatAreNotTcpAddressesFailAsUnreachable() throws Exception {
    DynamoEndpointId ep = new DynamoEndpointId("dynamo", "backend", "worker_kv_indexer_query_dp0");
    for (TransportAddress t : new TransportAddress[] {
        new TransportAddress(TransportAddress.Kind.NATS_TCP, "namespace.dynamo.component.backend"),
        TransportAddress.tcp("127.0.0.1:9999")}) {
      try {
        WorkerKvQueryResponse r = client.query(new RecoveryTarget(ep, 1, t), WorkerKvQueryRequest.fullRestore(1, 0),
            Duration.ofSeconds(5)).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        throw new AssertionError("expected a failure, got " + r);
      } catch (ExecutionException e) {
        assertThat(((RequestPlaneException) e.getCause()).kind()).isEqualTo(RequestPlaneException.Kind.UNREACHABLE);
      }
    }
    assertThat(client.counters().get(ClientCounter.BAD_TARGETS)).isEqualTo(2);
    assertThat(client.counters().get(ClientCounter.CONNECTIONS_OPENED)).isZero();
  }
}
