package dev.kvrelay.discovery.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to one test. A real Debian {@code etcd} (3.4) on free loopback client and peer
 * ports with a temporary data directory, plus {@code etcdctl} as an independent client. {@link #kill()} and
 * {@link #start()} restart it on the same ports and data directory.
 */
final class EtcdServer implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final Path dir;
  private final int clientPort;
  private final int peerPort;
  private final @Nullable Path tls;
  private @Nullable Process process;
  private @Nullable String user;
  private @Nullable String password;

  private EtcdServer(@Nullable Path tls) throws IOException {
    this.tls = tls;
    this.dir = Files.createTempDirectory("kvrelay-etcd-");
    // Both ports are taken while both probe sockets are open, so the two can never be the same port (picking one,
    // closing it and picking again could return it twice: etcd then fails with "address already in use").
    try (ServerSocket c = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ServerSocket p = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      this.clientPort = c.getLocalPort();
      this.peerPort = p.getLocalPort();
    }
  }

  /** Starts a fresh server and waits until it answers. */
  static EtcdServer startNew() throws Exception {
    EtcdServer s = new EtcdServer(null);
    s.start();
    return s;
  }

  /**
   * Starts a fresh server serving TLS with client-certificate authentication; {@code certs} holds {@code
   * ca.pem}, {@code server.pem}, {@code server.key}, {@code client.pem} and {@code client.key}.
   */
  static EtcdServer startNewTls(Path certs) throws Exception {
    EtcdServer s = new EtcdServer(certs);
    s.start();
    return s;
  }

  /** True if the Debian binaries are installed. */
  static boolean installed() {
    return Files.isExecutable(Path.of("/usr/bin/etcd")) && Files.isExecutable(Path.of("/usr/bin/etcdctl"));
  }

  /** The client URL. */
  String endpoint() {
    return (tls == null ? "http" : "https") + "://127.0.0.1:" + clientPort;
  }

  int clientPort() {
    return clientPort;
  }

  /** Credentials etcdctl uses from now on (after auth is enabled). */
  void useCredentials(String user, String password) {
    this.user = user;
    this.password = password;
  }

  /** (Re)starts etcd on the same ports and data directory and waits until it answers. */
  void start() throws Exception {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("already running");
    }
    String peer = "http://127.0.0.1:" + peerPort;
    List<String> cmd = new ArrayList<>(List.of("/usr/bin/etcd",
        "--name", "kvrelay-test",
        "--data-dir", dir.resolve("data").toString(),
        "--listen-client-urls", endpoint(),
        "--advertise-client-urls", endpoint(),
        "--listen-peer-urls", peer,
        "--initial-advertise-peer-urls", peer,
        "--initial-cluster", "kvrelay-test=" + peer,
        "--initial-cluster-state", "new",
        "--logger", "zap", "--log-outputs", "stderr"));
    if (tls != null) {
      cmd.addAll(List.of("--cert-file", tls.resolve("server.pem").toString(),
          "--key-file", tls.resolve("server.key").toString(),
          "--trusted-ca-file", tls.resolve("ca.pem").toString(), "--client-cert-auth"));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile()));
    process = pb.start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("etcd exited with " + process.exitValue() + ": " + log());
      }
      Result r = run(List.of("endpoint", "health"));
      if (r.exit() == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("etcd did not become healthy: " + r.output() + "\n" + log());
      }
      Thread.sleep(50);
    }
  }

  /** Kills etcd with SIGKILL and waits for it to exit. */
  void kill() throws InterruptedException {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  String log() {
    try {
      String text = Files.readString(dir.resolve("etcd.log"), StandardCharsets.UTF_8);
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Immutable: an etcdctl run. */
  record Result(int exit, String output) {}

  /** Runs etcdctl and returns its output; fails on a non-zero exit. */
  String etcdctl(String... args) throws Exception {
    Result r = run(List.of(args));
    if (r.exit() != 0) {
      throw new AssertionError("etcdctl " + String.join(" ", args) + " failed (" + r.exit() + "): " + r.output());
    }
    return r.output().trim();
  }

  /** Runs etcdctl with {@code stdin} as its input (e.g. {@code put key} reading the value). */
  String etcdctlWithInput(String stdin, String... args) throws Exception {
    Result r = run(List.of(args), stdin);
    if (r.exit() != 0) {
      throw new AssertionError("etcdctl " + String.join(" ", args) + " failed (" + r.exit() + "): " + r.output());
    }
    return r.output().trim();
  }

  Result run(List<String> args) throws Exception {
    return run(args, null);
  }

  private Result run(List<String> args, @Nullable String stdin) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("/usr/bin/etcdctl", "--endpoints", endpoint(), "--dial-timeout", "2s",
        "--command-timeout", "5s"));
    if (tls != null) {
      cmd.addAll(List.of("--cacert", tls.resolve("ca.pem").toString(), "--cert", tls.resolve("client.pem").toString(),
          "--key", tls.resolve("client.key").toString()));
    }
    if (user != null) {
      cmd.add("--user");
      cmd.add(user + ":" + password);
    }
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("ETCDCTL_API", "3");
    Process p = pb.start();
    if (stdin != null) {
      p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return new Result(-1, out + " (timed out)");
    }
    return new Result(p.exitValue(), out);
  }

  @Override
  public void close() throws IOException {
    try {
      kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
