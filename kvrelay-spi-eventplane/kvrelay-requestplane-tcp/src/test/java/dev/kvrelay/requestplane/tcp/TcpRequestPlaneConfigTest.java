package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.plugin.PluginRegistry;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneProvider;
import dev.kvrelay.spi.eventplane.RequestPlaneProviders;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Environment parsing (plugins-wire §1.2, runtime-inputs §9) and the ServiceLoader registration. */
class TcpRequestPlaneConfigTest {

  @Test
  void defaults() {
    TcpRequestPlaneConfig c = TcpRequestPlaneConfig.fromProperties(Map.of());
    assertThat(c.responsePort()).isZero();
    assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.maxMessageBytes()).isEqualTo(32 * 1024 * 1024);
    assertThat(c.tls()).isEmpty();
    assertThat(c.responseHost().isAnyLocalAddress()).isFalse();
    assertThat(c.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10)); // plugins-wire §1.2 step 4
    assertThat(c.connectionsPerWorker()).isEqualTo(4);
  }

  @Test
  void explicitValues() {
    TcpRequestPlaneConfig c = TcpRequestPlaneConfig.fromProperties(Map.of(
        "DYN_TCP_RESPONSE_STREAM_HOST", "lo", "DYN_TCP_RESPONSE_STREAM_PORT", "5562",
        "DYN_TCP_REQUEST_TIMEOUT", "7", "DYN_TCP_CONNECT_TIMEOUT", "3", "DYN_TCP_MAX_MESSAGE_SIZE", "1048576",
        "DYN_TCP_TLS_CERT_PATH", "/c.pem", "DYN_TCP_TLS_KEY_PATH", "/k.pem", "DYN_TCP_TLS_CLIENT_CA_CERT_PATH", "/ca.pem"));
    assertThat(c.responseHost().isLoopbackAddress()).isTrue(); // interface name "lo"
    assertThat(c.responsePort()).isEqualTo(5562);
    assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(c.maxMessageBytes()).isEqualTo(1_048_576);
    assertThat(c.tls()).hasValueSatisfying(t -> assertThat(t.clientCa()).isPresent());
  }

  @Test
  void invalidValuesNameTheVariable() {
    assertThatThrownBy(() -> TcpRequestPlaneConfig.fromProperties(Map.of("DYN_TCP_RESPONSE_STREAM_HOST", "0.0.0.0")))
        .hasMessageContaining("DYN_TCP_RESPONSE_STREAM_HOST").hasMessageContaining("unspecified");
    assertThatThrownBy(() -> TcpRequestPlaneConfig.fromProperties(Map.of("DYN_TCP_RESPONSE_STREAM_HOST", "::")))
        .hasMessageContaining("unspecified");
    assertThatThrownBy(() -> TcpRequestPlaneConfig.fromProperties(Map.of("DYN_TCP_RESPONSE_STREAM_HOST", "no-such-nic0")))
        .hasMessageContaining("neither an IP address nor an interface name");
    assertThatThrownBy(() -> TcpRequestPlaneConfig.fromProperties(Map.of("DYN_TCP_REQUEST_TIMEOUT", "5s")))
        .hasMessageContaining("DYN_TCP_REQUEST_TIMEOUT");
    assertThatThrownBy(() -> TcpRequestPlaneConfig.fromProperties(Map.of("DYN_TCP_RESPONSE_STREAM_PORT", "70000")))
        .hasMessageContaining("DYN_TCP_RESPONSE_STREAM_PORT");
    assertThatThrownBy(() -> TcpRequestPlaneConfig.fromProperties(Map.of("DYN_TCP_TLS_CERT_PATH", "/c.pem")))
        .hasMessageContaining("must be set together");
  }

  @Test
  void serviceLoaderFindsTheTcpProviderAndItOpensAClient() throws Exception {
    PluginRegistry<RequestPlaneProvider> registry = RequestPlaneProviders.load();
    RequestPlaneProvider tcp = registry.byName(RequestPlaneProviders.selectedName(null));
    assertThat(tcp).isInstanceOf(TcpRequestPlaneProvider.class);
    assertThat(tcp.artifact()).isEqualTo("dev.kvrelay:kvrelay-requestplane-tcp");
    assertThat(registry.best()).isSameAs(tcp); // above the mem provider
    try (RequestPlaneClient c = tcp.open(Map.of("DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.1"))) {
      assertThat(((TcpRequestPlaneClient) c).responseAddress()).startsWith("127.0.0.1:");
    }
  }
}
