package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The response listener under {@code DYN_TCP_TLS_*} (plugins-wire §1.2 step 1): the Python worker calls home over
 * TLS (Python's ssl module, OpenSSL), verifying the listener against a test CA made with the openssl CLI; with a
 * client CA the listener requires a client certificate (mTLS).
 */
class TlsListenerTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  @TempDir Path dir;
  PythonPeer worker;
  int port;

  @BeforeEach
  void setUp() throws Exception {
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key",
        "-out", "ca.pem", "-subj", "/CN=kvrelay-test-ca", "-days", "2");
    Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1\n");
    for (String name : List.of("relay", "worker")) {
      openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", name + ".key",
          "-out", name + ".csr", "-subj", "/CN=" + name);
      openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-out", name + ".pem", "-days", "2", "-extfile", "san.ext");
    }
    worker = PythonPeer.start("tcp_worker.py", dir);
    port = Integer.parseInt(worker.await("PORT ", WAIT).substring(5).trim());
  }

  @AfterEach
  void tearDown() throws Exception {
    worker.close();
  }

  private void openssl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("openssl.log").toFile()).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("openssl.log"))).isZero();
  }

  private TcpRequestPlaneClient client(boolean mtls) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.1");
    env.put("DYN_TCP_TLS_CERT_PATH", dir.resolve("relay.pem").toString());
    env.put("DYN_TCP_TLS_KEY_PATH", dir.resolve("relay.key").toString());
    if (mtls) {
      env.put("DYN_TCP_TLS_CLIENT_CA_CERT_PATH", dir.resolve("ca.pem").toString());
    }
    return TcpRequestPlaneClient.open(TcpRequestPlaneConfig.fromProperties(env));
  }

  private void workerTls(String... files) throws Exception {
    int mark = worker.mark();
    worker.send("TLS " + String.join(" ", files));
    worker.await(mark, l -> l.equals("TLS-OK"), WAIT, "TLS-OK");
  }

  private WorkerKvQueryResponse query(TcpRequestPlaneClient c, Duration timeout) throws Exception {
    return c.query(PythonWorkerInteropTest.target0(port), WorkerKvQueryRequest.incremental(PythonWorkerInteropTest.W, 0, 42), timeout)
        .toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void tlsListenerServesAWorkerThatVerifiesIt() throws Exception {
    workerTls(dir.resolve("ca.pem").toString());
    try (TcpRequestPlaneClient c = client(false)) {
      assertThat(query(c, Duration.ofSeconds(10))).isInstanceOf(WorkerKvQueryResponse.Events.class);
    }
  }

  @Test
  void mtlsListenerServesAWorkerWithAClientCertificate() throws Exception {
    workerTls(dir.resolve("ca.pem").toString(), dir.resolve("worker.pem").toString(), dir.resolve("worker.key").toString());
    try (TcpRequestPlaneClient c = client(true)) {
      assertThat(query(c, Duration.ofSeconds(10))).isInstanceOf(WorkerKvQueryResponse.Events.class);
    }
  }

  @Test
  void mtlsListenerRefusesAWorkerWithoutACertificate() throws Exception {
    workerTls(dir.resolve("ca.pem").toString());
    try (TcpRequestPlaneClient c = client(true)) {
      try {
        query(c, Duration.ofSeconds(2));
        throw new AssertionError("expected a timeout");
      } catch (ExecutionException e) {
        assertThat(((RequestPlaneException) e.getCause()).kind()).isEqualTo(RequestPlaneException.Kind.TIMEOUT);
      }
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (c.counters().get(ClientCounter.BAD_HANDSHAKES) == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(c.counters().get(ClientCounter.BAD_HANDSHAKES)).isEqualTo(1);
      assertThat(c.counters().get(ClientCounter.STREAMS_ATTACHED)).isZero();
    }
  }

  @Test
  void onlyACertificateIsAStartupError() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TcpRequestPlaneConfig.fromProperties(
        Map.of("DYN_TCP_TLS_KEY_PATH", dir.resolve("relay.key").toString())))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be set together");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TcpRequestPlaneClient.open(TcpRequestPlaneConfig.fromProperties(Map.of(
        "DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.1", "DYN_TCP_TLS_CERT_PATH", dir.resolve("relay.key").toString(),
        "DYN_TCP_TLS_KEY_PATH", dir.resolve("relay.key").toString()))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DYN_TCP_TLS_");
  }
}
