package dev.kvrelay.discovery.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ETCD_*} settings: upstream defaults ({@code plugins-wire.md} §6) and typed errors for bad values. */
class EtcdSettingsTest {

  @Test
  void defaultsAreUpstreams() throws Exception {
    EtcdSettings s = EtcdSettings.from(DiscoverySettings.empty());
    assertThat(s.endpoints()).containsExactly(URI.create("http://localhost:2379"));
    assertThat(s.leaseTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.startupConnectTimeout()).isEqualTo(Duration.ofSeconds(120));
    assertThat(s.username()).isNull();
    assertThat(s.tls()).isNull();
  }

  @Test
  void valuesAreRead() throws Exception {
    EtcdSettings s = EtcdSettings.from(DiscoverySettings.of(Map.of(
        "ETCD_ENDPOINTS", "http://10.0.0.1:2379, http://etcd-2:2379",
        "ETCD_AUTH_USERNAME", "relay", "ETCD_AUTH_PASSWORD", "s3cret",
        "ETCD_LEASE_TTL", "4", "ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS", "7")));
    assertThat(s.endpoints()).containsExactly(URI.create("http://10.0.0.1:2379"), URI.create("http://etcd-2:2379"));
    assertThat(s.username()).isEqualTo("relay");
    assertThat(s.password()).isEqualTo("s3cret");
    assertThat(s.leaseTtl()).isEqualTo(Duration.ofSeconds(4));
    assertThat(s.startupConnectTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(s.toString()).contains("relay").doesNotContain("s3cret");
  }

  @Test
  void tlsNeedsAllThreeFilesAndHttps(@TempDir Path dir) throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
    Path cert = Files.writeString(dir.resolve("c.pem"), "x");
    Path key = Files.writeString(dir.resolve("k.pem"), "x");
    EtcdSettings s = EtcdSettings.from(DiscoverySettings.of(Map.of("ETCD_ENDPOINTS", "https://etcd:2379",
        "ETCD_AUTH_CA", ca.toString(), "ETCD_AUTH_CLIENT_CERT", cert.toString(), "ETCD_AUTH_CLIENT_KEY", key.toString())));
    assertThat(s.tls()).isEqualTo(new EtcdSettings.Tls(ca, cert, key));
    assertInvalid(Map.of("ETCD_ENDPOINTS", "https://etcd:2379", "ETCD_AUTH_CA", ca.toString()), "must be set together");
    assertInvalid(Map.of("ETCD_AUTH_CA", ca.toString(), "ETCD_AUTH_CLIENT_CERT", cert.toString(),
        "ETCD_AUTH_CLIENT_KEY", key.toString()), "no https://");
    assertInvalid(Map.of("ETCD_ENDPOINTS", "https://etcd:2379", "ETCD_AUTH_CA", dir.resolve("missing").toString(),
        "ETCD_AUTH_CLIENT_CERT", cert.toString(), "ETCD_AUTH_CLIENT_KEY", key.toString()), "ETCD_AUTH_CA");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
    "ETCD_ENDPOINTS | 'http://a:2379,'               | empty entry",
    "ETCD_ENDPOINTS | localhost:2379                 | must start with http:// or https://",
    "ETCD_ENDPOINTS | http://a                       | needs a host and a port",
    "ETCD_ENDPOINTS | 'http://a:2379,https://b:2379' | mixes",
    "ETCD_ENDPOINTS | 'http://a b:2379'              | is not a URL",
    "ETCD_LEASE_TTL | 0                              | must be positive",
    "ETCD_LEASE_TTL | -3                             | must be positive",
    "ETCD_LEASE_TTL | 10s                            | whole number of seconds",
    "ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS | x        | whole number of seconds",
    "ETCD_AUTH_USERNAME | relay                      | must be set together",
    "ETCD_AUTH_PASSWORD | s3cret                     | must be set together",
  })
  void badValuesAreConfigurationErrorsNamingTheSetting(String name, String value, String message) {
    DiscoveryException e = assertInvalid(Map.of(name, value), message);
    assertThat(e.getMessage()).contains(name.startsWith("ETCD_AUTH") ? "ETCD_AUTH_USERNAME" : name);
    if (name.equals("ETCD_AUTH_PASSWORD")) {
      assertThat(e.getMessage()).doesNotContain(value);
    }
  }

  private static DiscoveryException assertInvalid(Map<String, String> values, String message) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> EtcdSettings.from(DiscoverySettings.of(values)));
    assertThat(t).isInstanceOf(DiscoveryException.class).hasMessageContaining(message);
    DiscoveryException e = (DiscoveryException) t;
    assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION);
    return e;
  }

  @Test
  void theProviderRejectsBadSettingsBeforeConnecting() {
    assertThatThrownBy(() -> new EtcdDiscoveryProvider().open(DiscoverySettings.of(Map.of("ETCD_LEASE_TTL", "0"))))
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
    assertThat(List.of(EtcdSettings.ENDPOINTS, EtcdSettings.LEASE_TTL, EtcdSettings.STARTUP_CONNECT_TIMEOUT))
        .containsExactly("ETCD_ENDPOINTS", "ETCD_LEASE_TTL", "ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS");
  }
}
