package dev.kvrelay.launcher.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.grpc.sidecar.NginxSidecar;
import dev.kvrelay.grpc.sidecar.TestPki;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvrelay inspect} through the project's nginx mTLS sidecar ({@link NginxSidecar}, certificates by
 * {@link TestPki}, both shared with the gRPC module's {@code MtlsSidecarTest}): with a client certificate of the
 * trusted CA {@code info} and {@code pool} answer the relay's own identity and pool; without one the command exits
 * non-zero naming the sidecar's gRPC status.
 */
@Timeout(180)
class InspectMtlsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  static InMemoryDiscovery discovery;
  static InMemoryEventPlane plane;
  static InMemoryRequestPlane requests;
  static RelayEngine engine;
  static RelayGrpcServer server;
  static TestPki pki;
  static TestPki.Issued client;
  static NginxSidecar nginx;

  @BeforeAll
  static void start() throws Exception {
    if (!Files.isExecutable(NginxSidecar.NGINX)) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but " + NginxSidecar.NGINX + " is missing (apt-get install nginx)");
      }
      assumeThat(false).as("Debian nginx not installed; test skipped").isTrue();
    }
    discovery = new InMemoryDiscovery();
    plane = InMemoryEventPlane.create();
    requests = new InMemoryRequestPlane();
    engine = RelayEngine.builder().config(RelayEngineConfig.builder().dcId("dc-a").watchAll(true)
        .expectedUniqueBlocks(4096).bind("127.0.0.1:5561").build()).discovery(discovery).eventPlane(plane)
        .requestPlane(requests).poolThreads(2).build();
    server = RelayGrpcServer.builder().engine(engine).address(new InetSocketAddress("127.0.0.1", 0)).build();
    server.start();
    SystemTestWorkers.Worker worker =
        SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane, requests);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (engine.catalog().pools().isEmpty()) {
      assertThat(System.nanoTime()).as("pool in catalog").isLessThan(deadline);
      Thread.sleep(10);
    }
    assertThat(worker.cache(InspectCommandTest.tokens(100, 3))).isEqualTo(3);
    pki = TestPki.create(dir, "trusted");
    client = pki.client("inspect");
    nginx = NginxSidecar.start(dir, server.port(), pki.server("relay"), pki.caCertificate());
  }

  @AfterAll
  static void stop() throws Exception {
    if (nginx != null) {
      nginx.close();
    }
    if (server != null) {
      server.close();
      engine.close();
      requests.close();
      plane.close();
      discovery.close();
    }
  }

  @Test
  void infoAndPoolAnswerThroughTheSidecarWithAClientCertificate() throws Exception {
    InspectCommandTest.Run info = InspectCommandTest.run("info", "--target", nginx.tlsTarget(), "--cacert",
        pki.caCertificate().toString(), "--cert", client.certificate().toString(), "--key",
        client.privateKey().toString());
    assertThat(info.status()).as(info.err()).isZero();
    assertThat(JSON.readTree(info.out()).get("relay").get("relayIncarnation").asText())
        .isEqualTo(Long.toUnsignedString(engine.identity().relayIncarnation()));

    InspectCommandTest.Run pool = InspectCommandTest.run("pool", "--target", nginx.tlsTarget(), "--seconds", "2",
        "--cacert", pki.caCertificate().toString(), "--cert", client.certificate().toString(), "--key",
        client.privateKey().toString());
    assertThat(pool.status()).as(pool.err()).isZero();
    JsonNode p = JSON.readTree(pool.out());
    assertThat(p.get("valid").asBoolean()).isTrue();
    assertThat(p.get("pool").asText()).isEqualTo("ns.backend.generate");
    assertThat(p.get("producerIncarnation").asText()).isEqualTo(
        Long.toUnsignedString(engine.catalog().pools().get(0).producer().producerIncarnation()));
  }

  @Test
  void withoutAClientCertificateTheCommandsFailNamingTheStatus() {
    InspectCommandTest.Run info = InspectCommandTest.run("info", "--target", nginx.tlsTarget(), "--cacert",
        pki.caCertificate().toString());
    assertThat(info.status()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(info.err()).contains("UNAUTHENTICATED kv-relay-error-reason=(none)")
        .contains("client certificate missing or not trusted");

    InspectCommandTest.Run pool = InspectCommandTest.run("pool", "--target", nginx.tlsTarget(), "--seconds", "1",
        "--cacert", pki.caCertificate().toString());
    assertThat(pool.status()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(pool.err()).contains("WatchKvPoolCatalog: UNAUTHENTICATED kv-relay-error-reason=");
  }

  @Test
  void aCertificateWithoutItsKeyIsAUsageError() {
    InspectCommandTest.Run r = InspectCommandTest.run("info", "--target", nginx.tlsTarget(), "--cert",
        client.certificate().toString());
    assertThat(r.status()).isEqualTo(InspectCommand.USAGE);
    assertThat(r.err()).contains("--cert and --key go together");
  }
}
