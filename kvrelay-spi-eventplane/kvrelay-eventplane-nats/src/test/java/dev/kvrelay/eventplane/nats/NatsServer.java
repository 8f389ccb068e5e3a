package dev.kvrelay.eventplane.nats;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the test thread. A real Debian {@code nats-server} on 127.0.0.1, a free port
 * and a temporary directory (config file and log), started and stopped by the test; {@link #kill()} and
 * {@link #start()} restart it on the same port. Skips the test when the binary is missing, except with
 * {@code CI=true}, where that is a failure.
 */
final class NatsServer implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/sbin/nats-server");

  private final Path dir;
  private final int port;
  private final @Nullable String config;
  private @Nullable Process process;

  private NatsServer(Path dir, int port, @Nullable String config) {
    this.dir = dir;
    this.port = port;
    this.config = config;
  }

  /** A running server without authorization. */
  static NatsServer start(Path dir) throws Exception {
    return startWith(dir, null);
  }

  /** A running server whose config file has {@code authorization { <authorization> }}. */
  static NatsServer startWith(Path dir, @Nullable String authorization) throws Exception {
    return startWithConfig(dir, authorization == null ? null : "authorization {\n" + authorization + "\n}");
  }

  /** A running server whose config file has {@code config} after its listen address (e.g. operator mode). */
  static NatsServer startWithConfig(Path dir, @Nullable String config) throws Exception {
    requireBinary();
    NatsServer s = new NatsServer(dir, freePort(), config);
    s.start();
    return s;
  }

  static void requireBinary() {
    if (!Files.isExecutable(BINARY)) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but " + BINARY + " is missing (apt-get install nats-server)");
      }
      assumeTrue(false, "nats-server not installed; test skipped");
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  int port() {
    return port;
  }

  String url() {
    return "nats://127.0.0.1:" + port;
  }

  /** Starts (or restarts) the server on its port and waits until it accepts connections. */
  void start() throws Exception {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("already running");
    }
    Path conf = dir.resolve("nats.conf");
    List<String> lines = new ArrayList<>();
    lines.add("listen: 127.0.0.1:" + port);
    lines.add("max_payload: 1048576");
    if (config != null) {
      lines.add(config);
    }
    Files.write(conf, lines, StandardCharsets.UTF_8);
    Path log = dir.resolve("nats.log");
    process = new ProcessBuilder(BINARY.toString(), "-c", conf.toString())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("nats-server exited with " + process.exitValue() + ": "
            + Files.readString(log));
      }
      try (Socket probe = new Socket()) {
        probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("nats-server did not listen on " + port + " within 20 s: "
              + Files.readString(log));
        }
        Thread.sleep(20);
      }
    }
  }

  /** Freezes the server (SIGSTOP): connections stay open but nothing answers, like a silently dead host. */
  void freeze() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** Resumes a frozen server (SIGCONT). */
  void thaw() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process p = java.util.Objects.requireNonNull(process, "not started");
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + name + " failed");
    }
  }

  /** Kills the server (SIGKILL: no goodbye to clients) and waits for it to exit. */
  void kill() throws IOException, InterruptedException {
    Process p = process;
    if (p != null) {
      if (p.isAlive()) {
        signal("CONT"); // a frozen process must be able to die
      }
      p.destroyForcibly();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("nats-server did not die");
      }
    }
  }

  @Override
  public void close() {
    try {
      kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
