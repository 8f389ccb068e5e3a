package dev.kvrelay.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.grpc.sidecar.TestPki;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS options of {@link RelayGrpcClient.Builder}: bad material fails at the builder with a clear error (not at
 * the first call), TLS cannot be combined with a caller's channel, and good openssl-made material builds a client.
 * The TLS path itself is exercised end to end through nginx in {@code MtlsSidecarTest}.
 */
class RelayGrpcClientTlsOptionsTest {
  @TempDir static Path dir;
  static TestPki pki;
  static TestPki.Issued client;

  @BeforeAll
  static void pki() throws Exception {
    pki = TestPki.create(dir, "options");
    client = pki.client("router");
  }

  @Test
  void goodMaterialBuildsATlsClient() {
    try (RelayGrpcClient c = RelayGrpcClient.builder().target("127.0.0.1:1").trustCertificates(pki.caCertificate())
        .clientCertificate(client.certificate(), client.privateKey()).build()) {
      assertThat(c.toString()).contains("127.0.0.1:1");
    }
    try (RelayGrpcClient c = RelayGrpcClient.builder().target("127.0.0.1:1")
        .clientCertificate(client.certificate(), client.privateKey()).build()) {
      assertThat(c.stats().rejectedMessages()).isZero();
    }
  }

  @Test
  void aMissingFileIsRefusedWhenItIsNamed() {
    Path missing = dir.resolve("no-such.crt");
    assertThatThrownBy(() -> RelayGrpcClient.builder().trustCertificates(missing))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("trust bundle " + missing + " is not a readable file");
    assertThatThrownBy(() -> RelayGrpcClient.builder().clientCertificate(client.certificate(), missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("client private key " + missing + " is not a readable file");
    assertThatThrownBy(() -> RelayGrpcClient.builder().clientCertificate(dir, client.privateKey()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client certificate chain");
  }

  @Test
  void materialThatIsNotPemFailsTheBuildNotTheFirstCall() throws Exception {
    Path garbage = Files.writeString(dir.resolve("garbage.crt"), "not a certificate\n");
    assertThatThrownBy(() -> RelayGrpcClient.builder().target("127.0.0.1:1").trustCertificates(garbage).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("TLS material for 127.0.0.1:1");
    // a PKCS#8 key where the certificate belongs
    assertThatThrownBy(() -> RelayGrpcClient.builder().target("127.0.0.1:1")
        .clientCertificate(client.privateKey(), client.privateKey()).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("TLS material for 127.0.0.1:1");
  }

  @Test
  void tlsOptionsDoNotApplyToACallersChannel() {
    ManagedChannel channel = ManagedChannelBuilder.forTarget("127.0.0.1:1").usePlaintext().build();
    try {
      assertThatThrownBy(() -> RelayGrpcClient.builder().channel(channel).trustCertificates(pki.caCertificate())
          .build()).isInstanceOf(IllegalStateException.class)
          .hasMessage("TLS options apply to a target channel, not to a caller's channel");
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void eachTlsOptionIsSetOnce() {
    RelayGrpcClient.Builder b = RelayGrpcClient.builder().trustCertificates(pki.caCertificate());
    assertThatThrownBy(() -> b.trustCertificates(pki.caCertificate())).isInstanceOf(IllegalStateException.class)
        .hasMessage("trustCertificates already set");
    b.clientCertificate(client.certificate(), client.privateKey());
    assertThatThrownBy(() -> b.clientCertificate(client.certificate(), client.privateKey()))
        .isInstanceOf(IllegalStateException.class).hasMessage("clientCertificate already set");
  }
}
