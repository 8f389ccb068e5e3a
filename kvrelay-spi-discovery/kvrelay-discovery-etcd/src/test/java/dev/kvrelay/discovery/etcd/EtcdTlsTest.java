package dev.kvrelay.discovery.etcd;

import static dev.kvrelay.spi.discovery.TestRecords.byKey;
import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.RecordingListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ETCD_AUTH_CA} + {@code ETCD_AUTH_CLIENT_CERT} + {@code ETCD_AUTH_CLIENT_KEY} against a real etcd
 * serving TLS with client-certificate authentication; the certificates come from the Debian {@code openssl}.
 */
class EtcdTlsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  @TempDir static Path certs;
  private static EtcdServer etcd;

  @BeforeAll
  static void startEtcdWithTls() throws Exception {
    Assumptions.assumeTrue((EtcdServer.installed() && Files.isExecutable(Path.of("/usr/bin/openssl")))
        || System.getenv("CI") != null, "Debian etcd-server / etcd-client / openssl not installed");
    Files.writeString(certs.resolve("server.ext"),
        "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
    Files.writeString(certs.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=kvrelay-test-ca");
    for (String who : List.of("server", "client")) {
      openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", who + ".key");
      openssl("req", "-new", "-key", who + ".key", "-out", who + ".csr", "-subj", "/CN=" + who);
      openssl("x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-out", who + ".pem", "-days", "2", "-extfile", who + ".ext");
    }
    etcd = EtcdServer.startNewTls(certs);
  }

  private static void openssl(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("/usr/bin/openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(certs.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("openssl %s: %s", String.join(" ", args), out).isZero();
  }

  @AfterAll
  static void stopEtcd() throws Exception {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Test
  void aClientCertificateWatchesAndRegistersOverTls() throws Exception {
    assertThat(etcd.endpoint()).startsWith("https://");
    try (EtcdDiscovery backend = (EtcdDiscovery) new EtcdDiscoveryProvider().open(DiscoverySettings.of(Map.of(
        EtcdSettings.ENDPOINTS, etcd.endpoint(), EtcdSettings.STARTUP_CONNECT_TIMEOUT, "15",
        EtcdSettings.CA, certs.resolve("ca.pem").toString(),
        EtcdSettings.CLIENT_CERT, certs.resolve("client.pem").toString(),
        EtcdSettings.CLIENT_KEY, certs.resolve("client.key").toString())))) {
      RecordingListener l = new RecordingListener();
      DiscoveryWatch watch = backend.watch(DiscoveryScope.watchAll(), l);
      l.await(TIMEOUT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
      EndpointRecord worker = endpoint("team-a", "backend", "generate", 3, "h:3/generate");
      etcd.etcdctlWithInput(DiscoveryCodec.encodeToString(worker), "put", worker.key().storageKey());
      EndpointRecord own = endpoint("relay", "kv_dc_relay", "control", backend.instanceId(), "h:1/control");
      backend.register(own);
      l.awaitView(TIMEOUT, byKey(List.of(worker, own)));
      watch.close();
      l.assertContractKept();
    }
  }

  @Test
  void plaintextAgainstTheTlsPortIsUnavailable() {
    assertThatThrownBy(() -> new EtcdDiscoveryProvider().open(DiscoverySettings.of(Map.of(
        EtcdSettings.ENDPOINTS, etcd.endpoint().replace("https://", "http://"),
        EtcdSettings.STARTUP_CONNECT_TIMEOUT, "3"))))
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.UNAVAILABLE));
  }
}
