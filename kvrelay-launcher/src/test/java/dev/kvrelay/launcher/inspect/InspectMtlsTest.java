package dev.kvrelay.launcher.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.grpc.sidecar.NginxSidecar;
import dev.kvrelay.grpc.sidecar.TestPki;
import dev.kvrelay.launcher.inspect.InspectTestRelay.Run;
import java.nio.file.Files;
import java.nio.file.Path;
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
  static InspectTestRelay relay;
  static RelayEngine engine;
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
    relay = InspectTestRelay.start();
    engine = relay.engine;
    pki = TestPki.create(dir, "trusted");
    client = pki.client("inspect");
    nginx = NginxSidecar.start(dir, relay.server.port(), pki.server("relay"), pki.caCertificate());
  }

  @AfterAll
  static void stop() throws Exception {
    if (nginx != null) {
      nginx.close();
    }
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  void infoAndPoolAnswerThroughTheSidecarWithAClientCertificate() throws Exception {
    Run info = InspectTestRelay.run("info", "--target", nginx.tlsTarget(), "--cacert",
        pki.caCertificate().toString(), "--cert", client.certificate().toString(), "--key",
        client.privateKey().toString());
    assertThat(info.status()).as(info.err()).isZero();
    assertThat(JSON.readTree(info.out()).get("relay").get("relayIncarnation").asText())
        .isEqualTo(Long.toUnsignedString(engine.identity().relayIncarnation()));

    Run pool = InspectTestRelay.run("pool", "--target", nginx.tlsTarget(), "--seconds", "2",
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
    Run info = InspectTestRelay.run("info", "--target", nginx.tlsTarget(), "--cacert",
        pki.caCertificate().toString());
    assertThat(info.status()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(info.err()).contains("UNAUTHENTICATED kv-relay-error-reason=(none)")
        .contains("client certificate missing or not trusted");

    Run pool = InspectTestRelay.run("pool", "--target", nginx.tlsTarget(), "--seconds", "1",
        "--cacert", pki.caCertificate().toString());
    assertThat(pool.status()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(pool.err()).contains("WatchKvPoolCatalog: UNAUTHENTICATED kv-relay-error-reason=");
  }

  @Test
  void aCertificateWithoutItsKeyIsAUsageError() {
    Run r = InspectTestRelay.run("info", "--target", nginx.tlsTarget(), "--cert",
        client.certificate().toString());
    assertThat(r.status()).isEqualTo(InspectCommand.USAGE);
    assertThat(r.err()).contains("--cert and --key go together");
  }

  @Test
  void authorityNamesTheServerTheCertificateIsCheckedAgainst() throws Exception {
    String port = nginx.tlsTarget().substring(nginx.tlsTarget().lastIndexOf(':') + 1);
    // The sidecar's certificate names IP:127.0.0.1 and DNS:localhost; the target stays 127.0.0.1.
    Run named = InspectTestRelay.run("info", "--target", nginx.tlsTarget(), "--authority", "localhost:" + port,
        "--cacert", pki.caCertificate().toString(), "--cert", client.certificate().toString(), "--key",
        client.privateKey().toString());
    assertThat(named.status()).as(named.err()).isZero();
    assertThat(JSON.readTree(named.out()).get("relay").get("relayIncarnation").asText())
        .isEqualTo(Long.toUnsignedString(engine.identity().relayIncarnation()));

    Run wrong = InspectTestRelay.run("info", "--target", nginx.tlsTarget(), "--authority", "relay.example:" + port,
        "--cacert", pki.caCertificate().toString(), "--cert", client.certificate().toString(), "--key",
        client.privateKey().toString());
    assertThat(wrong.status()).as(wrong.out()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(wrong.err()).contains("reflection: UNAVAILABLE kv-relay-error-reason=(none)");

    Run pool = InspectTestRelay.run("pool", "--target", nginx.tlsTarget(), "--authority", "relay.example:" + port,
        "--seconds", "1", "--cacert", pki.caCertificate().toString(), "--cert", client.certificate().toString(),
        "--key", client.privateKey().toString());
    assertThat(pool.status()).as(pool.out()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(pool.err()).contains("WatchKvPoolCatalog: UNAVAILABLE");
  }
}
