package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.grpc.sidecar.NginxSidecar;
import dev.kvrelay.grpc.sidecar.TestPki;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mTLS sidecar recipe ({@code deploy/kubernetes/mtls-sidecar/nginx.conf}, {@code docs/mtls-sidecar.md}) proven
 * with Debian's nginx: a real engine on the in-memory planes behind a {@link RelayGrpcServer} bound to 127.0.0.1,
 * nginx in front with certificates made here by openssl, and {@link RelayGrpcClient} over TLS. A client holding a
 * certificate of the trusted CA reads identity, catalog, and a pool's snapshot and deltas through it on long-lived
 * streams; a client without a certificate, or with one from another CA, is refused with {@code UNAUTHENTICATED}; the
 * plaintext probe port answers only the health check.
 */
@Timeout(180)
class MtlsSidecarTest {
  static final String SERVICE = "dynamo.kvrelay.v1.KvEventRelay";
  /** Short heartbeats, so a quiet stream shows it stays open through nginx within the test's time. */
  static final long HEARTBEAT_MS = 300;

  @TempDir static Path dir;
  static RelayHarness relay;
  static RelayGrpcServer server;
  static TestPki trusted;
  static TestPki stranger;
  static NginxSidecar nginx;
  static SimWorker worker;

  @BeforeAll
  static void start() throws Exception {
    if (!Files.isExecutable(NginxSidecar.NGINX)) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but " + NginxSidecar.NGINX + " is missing (apt-get install nginx)");
      }
      assumeThat(false).as("Debian nginx not installed; test skipped").isTrue();
    }
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-a").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:0")
        .set(RelayConfigKey.POOL_HEARTBEAT_INTERVAL_MS, HEARTBEAT_MS)
        .set(RelayConfigKey.CATALOG_HEARTBEAT_INTERVAL_MS, HEARTBEAT_MS)
        .build();
    relay = new RelayHarness(config, true);
    worker = relay.worker("ns/backend/generate", 501, card("llama", "aggregated", null, 0, 1)).start();
    server = RelayGrpcServer.builder().engine(relay.engine).build();
    server.start();
    trusted = TestPki.create(dir, "trusted");
    stranger = TestPki.create(dir, "stranger");
    nginx = NginxSidecar.start(dir, server.port(), trusted.server("relay"), trusted.caCertificate());
  }

  @AfterAll
  static void stop() throws Exception {
    if (nginx != null) {
      nginx.close();
    }
    if (server != null) {
      server.close();
    }
    if (relay != null) {
      relay.close();
    }
  }

  private static RelayGrpcClient client(TestPki.@Nullable Issued certificate, Path trust) {
    // the first TLS handshake of the JVM loads and warms a lot; a loaded CI machine needs more than the 5 s default
    RelayGrpcClient.Builder b = RelayGrpcClient.builder().target(nginx.tlsTarget()).trustCertificates(trust)
        .infoDeadline(java.time.Duration.ofSeconds(30));
    if (certificate != null) {
      b.clientCertificate(certificate.certificate(), certificate.privateKey());
    }
    return b.build();
  }

  @Test
  void aClientWithATrustedCertificateReadsCatalogSnapshotAndDeltasOnLongLivedStreams() throws Exception {
    worker.cache(0, RelayEngineScenarioTest.prompt(1, 4));
    KvPoolDescriptor pool = relay.pool(RelayHarness.ep("ns/backend/generate"));
    try (RelayGrpcClient client = client(trusted.client("router-eu"), trusted.caCertificate())) {
      assertThat(client.getRelayInfo()).isEqualTo(relay.engine.identity());

      // the catalog through nginx equals the engine's, pool for pool
      RelayStream<CatalogUpdate> catalog = WireSources.of(client).watchCatalog("mtls-catalog");
      CatalogUpdate first = awaitCatalog(catalog, u -> !u.pools().isEmpty());
      assertThat(first.relay()).isEqualTo(relay.engine.identity());
      // digests are byte arrays: compare by content
      assertThat(first.pools()).usingRecursiveFieldByFieldElementComparator()
          .containsExactlyElementsOf(wires(relay.engine.catalog().pools()));

      // snapshot, then deltas on the same stream, equal to the workers' live blocks (exact model)
      RelayStream<PoolFrame> frames =
          WireSources.of(client).subscribePool(pool.poolId(), pool.producer(), "mtls-pool").get(30, TimeUnit.SECONDS);
      WireReplica replica = new WireReplica(pool.producer(), frames).expectRelay(relay.engine.identity());
      relay.awaitExact(replica, pool, worker::liveCanonicals);
      assertThat(replica.snapshotChunks).as("snapshot chunks through nginx").isPositive();
      int deltasBefore = replica.deltas;
      worker.cache(0, RelayEngineScenarioTest.prompt(2, 3));
      relay.awaitExact(replica, pool, worker::liveCanonicals);
      awaitReplica(replica, r -> r.deltas > deltasBefore, "a delta through nginx");

      // the streams stay open while quiet: heartbeats keep arriving, a later catalog change arrives on the same call
      int heartbeats = replica.heartbeats;
      awaitReplica(replica, r -> r.heartbeats >= heartbeats + 5, "five more heartbeats on the quiet pool stream");
      long revision = first.revision();
      SimWorker second = relay.worker("ns/backend/chat", 502, card("mistral", "aggregated", null, 0, 1)).start();
      try {
        CatalogUpdate later = awaitCatalog(catalog, u -> Long.compareUnsigned(u.revision(), revision) > 0
            && u.pools().size() == 2);
        assertThat(later.pools()).usingRecursiveFieldByFieldElementComparator()
            .containsExactlyInAnyOrderElementsOf(wires(relay.engine.catalog().pools()));
      } finally {
        second.die();
      }
      worker.evictLeaves(0, 2);
      relay.awaitExact(replica, pool, worker::liveCanonicals);
      assertThat(replica.ended).isNull();
      assertThat(frames.isFinished()).isFalse();
      assertThat(catalog.isFinished()).isFalse();
      assertThat(client.stats().rejectedMessages()).isZero();
      catalog.close();
      frames.close();
    }
    assertThat(nginx.isAlive()).isTrue();
  }

  @Test
  void aClientWithoutACertificateIsRefusedWithUnauthenticated() {
    try (RelayGrpcClient client = client(null, trusted.caCertificate())) {
      assertRefused(client);
    }
  }

  @Test
  void aClientWithACertificateFromAnotherCaIsRefusedWithUnauthenticated() throws Exception {
    try (RelayGrpcClient client = client(stranger.client("intruder"), trusted.caCertificate())) {
      assertRefused(client);
    }
  }

  @Test
  void aClientThatDoesNotTrustTheSidecarsCaFailsTheHandshake() throws Exception {
    try (RelayGrpcClient client = client(trusted.client("router-eu"), stranger.caCertificate())) {
      assertThatThrownBy(client::getRelayInfo).isInstanceOfSatisfying(RelayException.class,
          e -> assertThat(e.getMessage()).startsWith("gRPC UNAVAILABLE"));
    }
  }

  /** Both a unary call and a server stream end with the sidecar's UNAUTHENTICATED, never reaching the relay. */
  private static void assertRefused(RelayGrpcClient client) {
    assertThatThrownBy(client::getRelayInfo).isInstanceOfSatisfying(RelayException.class, e -> {
      assertThat(e.getMessage()).isEqualTo("gRPC UNAUTHENTICATED: client certificate missing or not trusted");
      // no reason trailer from a proxy: the status-code fallback of wan-grpc.md §2.2
      assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    });
    assertThatThrownBy(() -> {
      RelayStream<CatalogUpdate> s = WireSources.of(client).watchCatalog("refused-catalog");
      s.poll(30, TimeUnit.SECONDS);
    }).isInstanceOfSatisfying(RelayException.class,
        e -> assertThat(e.getMessage()).startsWith("gRPC UNAUTHENTICATED"));
    assertThat(server.healthStatus(SERVICE)).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void theProbePortAnswersTheHealthCheckOnlyInPlaintext() throws Exception {
    ManagedChannel channel = Grpc.newChannelBuilder(nginx.probeTarget(), InsecureChannelCredentials.create()).build();
    try {
      HealthCheckResponse health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .check(HealthCheckRequest.newBuilder().setService(SERVICE).build());
      assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      assertThatThrownBy(() -> KvEventRelayGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .getRelayInfo(WireCodec.relayInfoRequest()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    } finally {
      channel.shutdownNow();
    }
  }

  private static List<DescriptorWire> wires(List<KvPoolDescriptor> pools) {
    return pools.stream().map(DescriptorWire::of).toList();
  }

  private static CatalogUpdate awaitCatalog(RelayStream<CatalogUpdate> stream, Predicate<CatalogUpdate> condition)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RelayHarness.DEADLINE_MS);
    CatalogUpdate last = null;
    while (System.nanoTime() < deadline) {
      CatalogUpdate u = stream.poll(100, TimeUnit.MILLISECONDS);
      if (u != null) {
        last = u;
        if (condition.test(u)) {
          return u;
        }
      }
    }
    throw new AssertionError("catalog condition not met in time; last " + last);
  }

  private static void awaitReplica(WireReplica replica, Predicate<WireReplica> condition, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RelayHarness.DEADLINE_MS);
    while (!condition.test(replica)) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
      replica.drain();
      assertThat(replica.ended).as("pool stream ended while waiting for %s", what).isNull();
      Thread.sleep(10);
    }
  }
}
