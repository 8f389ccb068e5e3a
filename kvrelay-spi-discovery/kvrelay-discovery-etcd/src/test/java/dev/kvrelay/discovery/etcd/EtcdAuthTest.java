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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ETCD_AUTH_USERNAME} / {@code ETCD_AUTH_PASSWORD} against a real etcd with auth enabled (its own
 * server: auth stays on): a user whose role may read and write {@code v1/} only.
 */
class EtcdAuthTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static EtcdServer etcd;

  @BeforeAll
  static void startEtcdWithAuth() throws Exception {
    Assumptions.assumeTrue(EtcdServer.installed() || System.getenv("CI") != null,
        "Debian etcd-server / etcd-client not installed");
    etcd = EtcdServer.startNew();
    etcd.etcdctl("user", "add", "root:root-secret");
    etcd.etcdctl("role", "add", "relay-role");
    etcd.etcdctl("role", "grant-permission", "relay-role", "--prefix=true", "readwrite", "v1/");
    etcd.etcdctl("user", "add", "relay:relay-secret");
    etcd.etcdctl("user", "grant-role", "relay", "relay-role");
    etcd.etcdctl("auth", "enable");
    etcd.useCredentials("root", "root-secret");
  }

  @AfterAll
  static void stopEtcd() throws Exception {
    if (etcd != null) {
      etcd.close();
    }
  }

  private static DiscoverySettings settings(Map<String, String> auth) {
    return DiscoverySettings.of(Map.of(EtcdSettings.ENDPOINTS, etcd.endpoint(),
        EtcdSettings.STARTUP_CONNECT_TIMEOUT, "15")).asMap().entrySet().stream()
        .reduce(DiscoverySettings.of(auth), (s, e) -> s.with(e.getKey(), e.getValue()), (a, b) -> a);
  }

  @Test
  void aUserWithAPasswordWatchesAndRegisters() throws Exception {
    try (EtcdDiscovery backend = (EtcdDiscovery) new EtcdDiscoveryProvider().open(settings(Map.of(
        EtcdSettings.USERNAME, "relay", EtcdSettings.PASSWORD, "relay-secret")))) {
      RecordingListener l = new RecordingListener();
      DiscoveryWatch watch = backend.watch(DiscoveryScope.watchAll(), l);
      l.await(TIMEOUT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());

      EndpointRecord worker = endpoint("team-a", "backend", "generate", 3, "h:3/generate");
      etcd.etcdctlWithInput(DiscoveryCodec.encodeToString(worker), "put", worker.key().storageKey());
      EndpointRecord own = endpoint("relay", "kv_dc_relay", "control", backend.instanceId(), "h:1/control");
      backend.register(own);
      l.awaitView(TIMEOUT, byKey(List.of(worker, own)));
      assertThat(etcd.etcdctl("get", own.key().storageKey(), "--print-value-only"))
          .isEqualTo(DiscoveryCodec.encodeToString(own));
      watch.close();
      l.assertContractKept();
    }
  }

  @Test
  void aWrongPasswordIsAConfigurationError() {
    assertThatThrownBy(() -> new EtcdDiscoveryProvider().open(settings(Map.of(
        EtcdSettings.USERNAME, "relay", EtcdSettings.PASSWORD, "wrong"))))
        .isInstanceOfSatisfying(DiscoveryException.class, e -> {
          assertThat(e.kind()).as(e.getMessage()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION);
          assertThat(e.getMessage()).contains(EtcdSettings.USERNAME).doesNotContain("wrong");
        });
  }

  @Test
  void noCredentialsAgainstAnAuthEnabledEtcdIsAConfigurationError() {
    assertThatThrownBy(() -> new EtcdDiscoveryProvider().open(settings(Map.of())))
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
  }
}
