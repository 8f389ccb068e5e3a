package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.discovery.file.FileDiscovery;
import dev.kvrelay.discovery.file.FileKvRegistration;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.EventTopics;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock relay as a child process ({@code producer.md} §7.1, §7.6; issue 12): the seed manifest's arguments
 * with the runtime environment choosing the plugins, a worker advertised in Dynamo's file KV store reaching the
 * catalog over gRPC, SIGTERM giving exit 0, and the exit statuses of argument errors (2) and start errors (1).
 */
@Timeout(240)
class StockRelayProcessTest {
  private static final Pattern SERVING = Pattern.compile("kvrelay: serving dc-a on 127\\.0\\.0\\.1:(\\d+)");
  private static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("prod", "backend", "generate");
  /** The grpc-java logger of failed connections (an HTTP/1 probe is one). */
  private static final String CONNECTIONS_LOGGER = "io.grpc.netty.shaded.io.grpc.netty.NettyServerTransport.connections";

  @TempDir Path store;

  private Map<String, String> fileDiscoveryEnv() {
    return Map.of("DYN_NAMESPACE", "relay", "DYN_DISCOVERY_BACKEND", "file", "DYN_FILE_KV", store.toString(),
        "DYN_EVENT_PLANE", "mem", "DYN_REQUEST_PLANE", "tcp", "DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.1");
  }

  @Test
  void theSeedsArgumentsOnFileDiscoveryServeTheAdvertisedPoolAndSigtermExits0() throws Exception {
    try (FileDiscovery worker = FileDiscovery.builder(store).open();
        FileKvRegistration registration = worker.register();
        LauncherProcess relay = LauncherProcess.start(fileDiscoveryEnv(), "--dc-id", "dc-a", "--watch-all",
            "--bind", "127.0.0.1:0")) {
      int port = Integer.parseInt(relay.awaitLine(SERVING).group(1));
      // producer §7.5: the diagnostic endpoints of dc-a (component hash from the spec's example) are advertised
      // in the relay's own discovery store, and withdrawn again on the orderly stop below.
      String diagnostics = "kv_dc_relay_cfe22161303982bc925df4cbdf6a2e27";
      long advertisedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (storeMentions(diagnostics) < 3) {
        assertThat(System.nanoTime()).as("3 diagnostic endpoint records in the file store; stderr:%n%s",
            relay.stderr()).isLessThan(advertisedBy);
        Thread.sleep(50); // polling interval of a condition with a deadline
      }
      advertise(registration);

      ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      try (RelayGrpcClient client = RelayGrpcClient.builder().channel(channel).build();
          RelayStream<CatalogUpdate> catalog = WireSources.of(client).watchCatalog("launcher-process-test")) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<DescriptorWire.Endpoint> pools = List.of();
        while (pools.isEmpty()) {
          assertThat(System.nanoTime()).as("the advertised pool in the catalog within 60 s; stderr:%n%s",
              relay.stderr()).isLessThan(until);
          CatalogUpdate u = catalog.poll(1, TimeUnit.SECONDS);
          if (u != null) {
            pools = u.pools().stream().map(DescriptorWire::servingEndpoint).toList();
          }
        }
        assertThat(pools).containsExactly(new DescriptorWire.Endpoint("prod", "backend", "generate"));
      } finally {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
      http1Probe(port);

      relay.process.destroy(); // SIGTERM
      assertThat(relay.awaitExit()).as("exit after SIGTERM; stderr:%n%s", relay.stderr()).isZero();
      assertThat(relay.stdoutLines()).containsExactly("kvrelay: serving dc-a on 127.0.0.1:" + port, "kvrelay: stopped");
      assertThat(storeMentions(diagnostics)).as("diagnostic records withdrawn on stop").isZero();
      String stderr = relay.stderr();
      assertThat(stderr).contains("kvrelay: stopping on SIGTERM")
          .contains("plugins open: discovery=file eventPlane=mem requestPlane=tcp")
          .contains("relay started: dc_id=dc-a");
      assertThat(stderr).as("an HTTP/1 probe on the gRPC port prints no Netty trace")
          .doesNotContain("Http2Exception").doesNotContain("\tat ");
    }
  }

  @Test
  void theSystemServerAnswersHealthAndMetricsFromTheRunningRelayAndTurns503OnStop() throws Exception {
    Map<String, String> env = new java.util.HashMap<>(fileDiscoveryEnv());
    env.put("DYN_SYSTEM_PORT", "0");
    env.put("DYN_SYSTEM_HOST", "127.0.0.1");
    try (FileDiscovery worker = FileDiscovery.builder(store).open();
        FileKvRegistration registration = worker.register();
        LauncherProcess relay = LauncherProcess.start(env, "--dc-id", "dc-a", "--watch-all",
            "--bind", "127.0.0.1:0")) {
      int systemPort = Integer.parseInt(relay.awaitLine(
          Pattern.compile("kvrelay: system server on 127\\.0\\.0\\.1:(\\d+) .*")).group(1));
      relay.awaitLine(SERVING);
      java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
      java.net.URI base = java.net.URI.create("http://127.0.0.1:" + systemPort);
      java.net.http.HttpResponse<String> health = http.send(
          java.net.http.HttpRequest.newBuilder(base.resolve("/health")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as("health of a serving relay: %s", health.body()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"ready\"");

      advertise(registration);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      String metrics = "";
      Pattern onePool = Pattern.compile(
          "(?m)^dynamo_component_kv_dc_relay_catalog_pool_count\\{[^}]*dynamo_namespace=\"relay\"[^}]*\\} 1(\\.0)?$");
      while (!onePool.matcher(metrics).find()) {
        assertThat(System.nanoTime()).as("catalog_pool_count 1 within 60 s; last scrape:%n%s", metrics)
            .isLessThan(until);
        Thread.sleep(100); // polling interval of a condition with a deadline
        metrics = http.send(java.net.http.HttpRequest.newBuilder(base.resolve("/metrics")).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      }
      assertThat(metrics).contains("jvm_memory_used_bytes");

      relay.process.destroy(); // SIGTERM
      assertThat(relay.awaitExit()).as("exit after SIGTERM; stderr:%n%s", relay.stderr()).isZero();
    }
  }

  @Test
  void theHttp1ProbeTraceIsOnlyHiddenByTheLoggerConfiguration() throws Exception {
    // Positive control of the test above: with the connections logger at debug the same probe prints its trace,
    // so the probe does reach the log and its absence there is the configuration's doing.
    Map<String, String> env = new java.util.HashMap<>(fileDiscoveryEnv());
    env.put("DYN_LOG", CONNECTIONS_LOGGER + "=debug");
    try (LauncherProcess relay = LauncherProcess.start(env, "--dc-id", "dc-a", "--bind", "127.0.0.1:0")) {
      int port = Integer.parseInt(relay.awaitLine(SERVING).group(1));
      http1Probe(port);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!relay.stderr().contains("Http2Exception")) {
        assertThat(System.nanoTime()).as("the probe's trace at debug; stderr:%n%s", relay.stderr()).isLessThan(until);
        Thread.sleep(20);
      }
      relay.process.destroy();
      assertThat(relay.awaitExit()).isZero();
    }
  }

  @Test
  void noArgumentsAndNoDynDcIdExit2AndNeverRunTheDemo() throws Exception {
    // The seed's environment without DYN_DC_ID: an argument error, not a demo that exits 0.
    try (LauncherProcess relay = LauncherProcess.start(Map.of("DYN_DISCOVERY_BACKEND", "kubernetes",
        "DYN_EVENT_PLANE", "nats", "DYN_SYSTEM_PORT", "8081", "DYN_RELAY_BIND", "0.0.0.0:5561"))) {
      assertThat(relay.awaitExit()).isEqualTo(2);
      assertThat(relay.stderr()).startsWith("kvrelay: --dc-id or DYN_DC_ID is required\n");
      assertThat(relay.stdoutLines()).isEmpty();
    }
  }

  @Test
  void aClassPathWithoutTheEtcdPluginNamesItsArtifactAndExits1() throws Exception {
    try (LauncherProcess relay = LauncherProcess.start(entry -> !entry.contains("kvrelay-discovery-etcd"),
        Map.of("DYN_DC_ID", "dc-a"))) {
      assertThat(relay.awaitExit()).as("stderr:%n%s", relay.stderr()).isEqualTo(1);
      assertThat(relay.stderr()).contains(
          "kvrelay: no discovery backend named 'etcd': add dev.kvrelay:kvrelay-discovery-etcd to the class path\n");
      assertThat(relay.stdoutLines()).isEmpty();
    }
  }

  @Test
  void aStartTimeConfigErrorExits1() throws Exception {
    try (LauncherProcess relay = LauncherProcess.start(fileDiscoveryEnv(), "--dc-id", "dc-a", "--bind",
        "localhost:5561")) {
      assertThat(relay.awaitExit()).isEqualTo(1);
      assertThat(relay.stderr()).startsWith("kvrelay: invalid KV DC Relay bind address");
    }
  }

  /** Sends an HTTP/1.1 request to the gRPC port and waits until the server closes the connection. */
  /** Files under the file store whose path or content names {@code text}. */
  private long storeMentions(String text) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(store)) {
      return files.filter(java.nio.file.Files::isRegularFile).filter(f -> {
        try {
          return f.toString().contains(text) || java.nio.file.Files.readString(f).contains(text);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
          return false; // removed or rewritten while walking: counted on the next poll
        }
      }).count();
    } catch (java.io.UncheckedIOException e) {
      return -1; // a directory vanished mid-walk; the caller polls again
    }
  }

  private static void http1Probe(int port) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write("GET /health HTTP/1.1\r\nHost: relay\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      while (in.read(buf) >= 0) {
        // drain until the server closes
      }
    }
  }

  /** Advertises one worker serving {@link #ENDPOINT} (card, instance, one KV event source) in the file store. */
  private static void advertise(FileKvRegistration registration) throws Exception {
    long id = registration.connectionId();
    EndpointRecord instance = new EndpointRecord(new EndpointKey(ENDPOINT, id),
        new Transport.Tcp("127.0.0.1:1/" + Long.toUnsignedString(id)), "json", null);
    JsonObject card = JsonObject.builder()
        .put("display_name", "Qwen/Qwen3-0.6B")
        .put("kv_cache_block_size", 16)
        .put("worker_type", "aggregated")
        .put("runtime_config", JsonObject.builder().put("data_parallel_start_rank", 0).put("data_parallel_size", 1)
            .put("total_kv_blocks", 1024).build())
        .build();
    registration.put(ModelRecord.of(new ModelKey(ENDPOINT, id, null), card));
    registration.put(instance);
    registration.put(new EventSourceRecord(
        new EventSourceKey(new EventScope.Endpoint(ENDPOINT), EventTopics.KV_EVENTS, 7L),
        new KvEventSource(ENDPOINT, id, 0, 7L, instance)));
  }
}
