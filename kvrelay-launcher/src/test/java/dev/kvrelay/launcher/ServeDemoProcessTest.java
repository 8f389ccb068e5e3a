package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.server.CurlSmoke;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code demo} subcommand in a child JVM (wan-grpc.md §6.3, §6.5; conformance C46): it serves GetRelayInfo and
 * a pool whose frames keep coming (the simulated workers keep caching and evicting) over a real socket, and ends
 * with status 0 on SIGTERM and on SIGINT. Without the launcher's {@code sun.misc.Signal} handlers
 * ({@link StopSignals}, the decision pinned here) a JVM ended by SIGTERM exits 143.
 */
@Timeout(180)
class ServeDemoProcessTest {
  private static final Pattern SERVING = Pattern.compile("kvrelay: serving us-west on 127\\.0\\.0\\.1:(\\d+)");
  private static final Pattern LOOK = Pattern.compile("kvrelay: look: .*");
  /** The contract marker {@code 0x4B565231} ("KVR1", wan-grpc.md §1). */
  private static final long MARKER = 0x4B565231L;

  @Test
  void c46_sigtermGivesACleanExit0() throws Exception {
    try (LauncherProcess child = LauncherProcess.start(Map.of(), "demo", "--bind", "127.0.0.1:0")) {
      int port = Integer.parseInt(child.awaitLine(SERVING).group(1));
      child.awaitLine(LOOK);
      assertThat(child.stdoutLines().get(1)).startsWith("kvrelay: pool dynamo.backend.generate (model ");

      ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      try (RelayGrpcClient client = RelayGrpcClient.builder().channel(channel).build()) {
        RelayInfo raw = KvEventRelayGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
            .getRelayInfo(WireCodec.relayInfoRequest());
        assertThat(raw.getProtocolVersion()).isEqualTo(1);
        assertThat(Integer.toUnsignedLong(raw.getContractMarker())).isEqualTo(MARKER);
        RelayIdentity relay = client.getRelayInfo();
        assertThat(relay.drtInstanceId()).isEqualTo(raw.getRelay().getDrtInstanceId());
        CatalogUpdate first;
        try (RelayStream<CatalogUpdate> catalog = WireSources.of(client).watchCatalog("c46-process-test")) {
          first = catalog.poll(30, TimeUnit.SECONDS);
          assertThat(first).as("first catalog update").isNotNull();
          assertThat(first.relay()).isEqualTo(relay);
          assertThat(first.pools()).extracting(DescriptorWire::servingEndpoint)
              .containsExactly(new DescriptorWire.Endpoint("dynamo", "backend", "generate"));
        }
        deltasKeepComing(client, first.pools().get(0));
      } finally {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
      curlGetRelayInfo(port);

      child.process.destroy(); // SIGTERM on Linux
      assertThat(child.awaitExit())
          .as("exit status after SIGTERM (143 without the handler); stderr:%n%s", child.stderr()).isZero();
      List<String> lines = child.stdoutLines();
      assertThat(lines.get(0)).isEqualTo("kvrelay: serving us-west on 127.0.0.1:" + port);
      assertThat(lines.get(lines.size() - 1)).isEqualTo("kvrelay: stopped");
      assertThat(lines.get(lines.size() - 2)).matches("kvrelay: demo traffic: [1-9]\\d* blocks stored, \\d+ removed");
      assertThat(child.stderr()).contains("kvrelay: stopping on SIGTERM");
    }
  }

  @Test
  void c46_sigintAlsoGivesACleanExit0() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/bin/kill")), "/bin/kill is not available");
    assumeFalse(LauncherProcess.sigintIgnored(),
        "this test JVM inherited SIGINT as ignored (started as a shell's background job), so its child does too");
    try (LauncherProcess child = LauncherProcess.start(Map.of(), "demo", "--bind", "127.0.0.1:0")) {
      int port = Integer.parseInt(child.awaitLine(SERVING).group(1));
      child.awaitLine(LOOK);
      child.interrupt();
      assertThat(child.awaitExit()).as("exit status after SIGINT; stderr:%n%s", child.stderr()).isZero();
      List<String> lines = child.stdoutLines();
      assertThat(lines.get(0)).isEqualTo("kvrelay: serving us-west on 127.0.0.1:" + port);
      assertThat(lines.get(lines.size() - 1)).isEqualTo("kvrelay: stopped");
      assertThat(child.stderr()).contains("kvrelay: stopping on SIGINT");
    }
  }

  @Test
  void anInheritedIgnoredSigintIsReportedAndSigtermStillStops() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "/bin/bash is not available");
    try (LauncherProcess child = LauncherProcess.startIgnoring("INT", Map.of(), "demo", "--bind", "127.0.0.1:0")) {
      child.awaitLine(SERVING);
      child.awaitLine(LOOK);
      assertThat(child.stderr()).contains("kvrelay: SIGINT is ignored (inherited from the parent process); it does"
          + " not stop the relay");
      assertThat(child.stderr()).doesNotContain("SIGTERM is ignored");
      child.process.destroy(); // SIGTERM on Linux (the pid is the JVM: bash exec-ed it)
      assertThat(child.awaitExit()).as("exit status after SIGTERM; stderr:%n%s", child.stderr()).isZero();
    }
  }

  /** Subscribes the demo pool and waits (deadline 60 s) for frames past the snapshot: deltas flow while idle. */
  private static void deltasKeepComing(RelayGrpcClient client, DescriptorWire pool) throws Exception {
    KvPoolDescriptor descriptor = CatalogValidator.validate(pool);
    try (RelayStream<PoolFrame> frames = WireSources.of(client).subscribePool(descriptor.producer().poolId(), descriptor.producer(),
        "c46-deltas").get(30, TimeUnit.SECONDS)) {
      int deltas = 0;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (deltas < 3) {
        assertThat(System.nanoTime()).as("3 delta frames within 60 s (got %d)", deltas).isLessThan(until);
        PoolFrame f = frames.poll(1, TimeUnit.SECONDS);
        if (f != null && f.kind() == PoolFrame.Kind.DELTA) {
          deltas++;
        }
      }
    }
  }

  /** The spec's curl h2c smoke check ({@link CurlSmoke}): skipped without curl HTTP/2 unless CI=true. */
  private static void curlGetRelayInfo(int port) throws IOException, InterruptedException {
    if (CurlSmoke.available()) {
      assertThat(CurlSmoke.getRelayInfo(port).getProtocolVersion()).isEqualTo(1);
    }
  }
}
