package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wan.CatalogUpdate;
import dev.kvrelay.engine.wan.DescriptorWire;
import dev.kvrelay.engine.wan.RelayStream;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.server.CurlSmoke;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code --serve-demo} mode in a child JVM (wan-grpc.md §6.3, §6.5; conformance C46): it serves GetRelayInfo
 * over a real socket and ends with status 0 on SIGTERM and on SIGINT. Without the launcher's {@code sun.misc.Signal}
 * handlers ({@link StopSignals}, the decision pinned here) a JVM ended by SIGTERM exits 143.
 */
@Timeout(120)
class ServeDemoProcessTest {
  private static final Pattern SERVING = Pattern.compile("kvrelay: serving us-west on 127\\.0\\.0\\.1:(\\d+)");
  /** The contract marker {@code 0x4B565231} ("KVR1", wan-grpc.md §1). */
  private static final long MARKER = 0x4B565231L;

  /**
   * Confined to the test thread: a child JVM running {@code Main --serve-demo 127.0.0.1:0}. Its output goes to
   * files, not pipes: {@link Process#destroy()} closes the pipes, so output written while stopping would be lost.
   */
  private static final class Child implements AutoCloseable {
    final Process process;
    final Path dir;
    final Path stdout;
    final Path stderr;

    Child() throws IOException {
      dir = Files.createTempDirectory("serve-demo");
      stdout = dir.resolve("stdout.txt");
      stderr = dir.resolve("stderr.txt");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.kvrelay.launcher.Main",
          "--serve-demo", "127.0.0.1:0")
          .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    }

    List<String> stdoutLines() throws IOException {
      return Files.readAllLines(stdout, StandardCharsets.UTF_8);
    }

    String stderr() throws IOException {
      return Files.readString(stderr, StandardCharsets.UTF_8);
    }

    /** Waits for the serving line (deadline 30 s) and returns the bound port. */
    int awaitServing() throws IOException, InterruptedException {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        List<String> lines = stdoutLines();
        if (!lines.isEmpty()) {
          Matcher m = SERVING.matcher(lines.get(0));
          assertThat(m.matches()).as("first line %s; stderr:%n%s", lines.get(0), stderr()).isTrue();
          assertThat(lines).as("one line while serving").hasSize(1);
          return Integer.parseInt(m.group(1));
        }
        assertThat(process.isAlive()).as("child alive; stderr:%n%s", stderr()).isTrue();
        assertThat(System.nanoTime()).as("serving line within 30 s; stderr:%n%s", stderr()).isLessThan(until);
        Thread.sleep(20);
      }
    }

    /** Waits up to 10 s for the exit. */
    void awaitExit() throws IOException, InterruptedException {
      assertThat(process.waitFor(10, TimeUnit.SECONDS))
          .as("the child exits within 10 s; stdout %s; stderr:%n%s", stdoutLines(), stderr()).isTrue();
    }

    @Override
    public void close() throws IOException, InterruptedException {
      if (process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      Files.deleteIfExists(stdout);
      Files.deleteIfExists(stderr);
      Files.deleteIfExists(dir);
    }
  }

  @Test
  void c46_sigtermGivesACleanExit0() throws Exception {
    try (Child child = new Child()) {
      int port = child.awaitServing();

      ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      try (RelayGrpcClient client = RelayGrpcClient.builder().channel(channel).build()) {
        // The raw reply: protocol_version 1 and the spec's contract marker.
        RelayInfo raw = KvEventRelayGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
            .getRelayInfo(WireCodec.relayInfoRequest());
        assertThat(raw.getProtocolVersion()).isEqualTo(1);
        assertThat(Integer.toUnsignedLong(raw.getContractMarker())).isEqualTo(MARKER);
        RelayIdentity relay = client.getRelayInfo();
        assertThat(relay.drtInstanceId()).isEqualTo(raw.getRelay().getDrtInstanceId());
        // The demo DC's catalog lists the simulated workers' endpoint (dynamo/backend/generate).
        try (RelayStream<CatalogUpdate> catalog = client.watchCatalog("c46-process-test")) {
          CatalogUpdate first = catalog.poll(10, TimeUnit.SECONDS);
          assertThat(first).as("first catalog update").isNotNull();
          assertThat(first.relay()).isEqualTo(relay);
          assertThat(first.pools()).extracting(DescriptorWire::servingEndpoint)
              .containsExactly(new DescriptorWire.Endpoint("dynamo", "backend", "generate"));
        }
      } finally {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
      curlGetRelayInfo(port);

      child.process.destroy(); // SIGTERM on Linux
      child.awaitExit();
      assertThat(child.process.exitValue())
          .as("exit status after SIGTERM (143 without the handler); stderr:%n%s", child.stderr()).isZero();
      assertThat(child.stdoutLines()).as("stdout; stderr:%n%s", child.stderr())
          .containsExactly("kvrelay: serving us-west on 127.0.0.1:" + port, "kvrelay: stopped");
      assertThat(child.stderr()).contains("kvrelay: stopping on SIGTERM");
    }
  }

  @Test
  void c46_sigintAlsoGivesACleanExit0() throws Exception {
    Path kill = Path.of("/bin/kill");
    assumeTrue(Files.isExecutable(kill), "/bin/kill is not available");
    try (Child child = new Child()) {
      int port = child.awaitServing();
      Process k = new ProcessBuilder(kill.toString(), "-INT", Long.toString(child.process.pid())).start();
      assertThat(k.waitFor(5, TimeUnit.SECONDS)).isTrue();
      assertThat(k.exitValue()).isZero();
      child.awaitExit();
      assertThat(child.process.exitValue()).as("exit status after SIGINT; stderr:%n%s", child.stderr()).isZero();
      assertThat(child.stdoutLines()).as("stdout; stderr:%n%s", child.stderr())
          .containsExactly("kvrelay: serving us-west on 127.0.0.1:" + port, "kvrelay: stopped");
      assertThat(child.stderr()).contains("kvrelay: stopping on SIGINT");
    }
  }

  /** The spec's curl h2c smoke check ({@link CurlSmoke}): skipped without curl HTTP/2 unless CI=true. */
  private static void curlGetRelayInfo(int port) throws IOException, InterruptedException {
    if (CurlSmoke.available()) {
      assertThat(CurlSmoke.getRelayInfo(port).getProtocolVersion()).isEqualTo(1);
    }
  }
}
