package dev.kvrelay.grpc.sidecar;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: confined to one test thread. Debian's {@code nginx} run as the shipped mTLS sidecar recipe
 * ({@code deploy/kubernetes/mtls-sidecar/nginx.conf}) in a temp directory: the recipe is copied with only its
 * {@code # test rewrites} lines changed (listen ports on 127.0.0.1, certificate paths, the relay's upstream port,
 * pid and error log in the directory) plus the process-level settings a test run needs (no daemon, temp paths in the
 * directory, workers as the current user when run as root). Every rewrite must match the recipe exactly once, so a
 * recipe edit that the test does not follow fails here instead of testing something else.
 */
public final class NginxSidecar implements AutoCloseable {
  /** Where Debian's package installs the binary. */
  public static final Path NGINX = Path.of("/usr/sbin/nginx");
  private static final long START_DEADLINE_MS = 30_000;

  private final Process process;
  private final Path dir;
  private final int tlsPort;
  private final int probePort;

  private NginxSidecar(Process process, Path dir, int tlsPort, int probePort) {
    this.process = process;
    this.dir = dir;
    this.tlsPort = tlsPort;
    this.probePort = probePort;
  }

  /** The shipped recipe, found from the module directory (surefire's working directory) or the repository root. */
  public static Path recipe() {
    for (Path base : List.of(Path.of(".."), Path.of("."))) {
      Path p = base.resolve("deploy/kubernetes/mtls-sidecar/nginx.conf");
      if (Files.isRegularFile(p)) {
        return p.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException("deploy/kubernetes/mtls-sidecar/nginx.conf not found from " + Path.of("")
        .toAbsolutePath());
  }

  /** {@code nginx -v}'s version text, e.g. {@code nginx/1.22.1}. */
  public static String version() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(NGINX.toString(), "-v").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    p.waitFor(10, TimeUnit.SECONDS);
    return out.replace("nginx version: ", "");
  }

  /**
   * Starts nginx in front of {@code 127.0.0.1:relayPort} with the given server certificate and client CA; retries on
   * a lost port race (another process took a free port between probe and bind).
   */
  public static NginxSidecar start(Path dir, int relayPort, TestPki.Issued server, Path clientCa)
      throws IOException, InterruptedException {
    String recipe = Files.readString(recipe(), StandardCharsets.UTF_8);
    IOException last = null;
    for (int attempt = 1; attempt <= 3; attempt++) {
      int[] ports = freePorts(2);
      Path run = Files.createDirectories(dir.resolve("nginx-" + attempt));
      Path conf = run.resolve("nginx.conf");
      Files.writeString(conf, configure(recipe, run, ports[0], ports[1], relayPort, server, clientCa));
      Path stderr = run.resolve("stderr.log");
      Process p = new ProcessBuilder(NGINX.toString(), "-p", run.toString(), "-c", conf.toString(),
          "-e", run.resolve("error.log").toString())
          .redirectErrorStream(true).redirectOutput(stderr.toFile()).start();
      NginxSidecar sidecar = new NginxSidecar(p, run, ports[0], ports[1]);
      try {
        sidecar.awaitListening();
        return sidecar;
      } catch (IOException e) {
        sidecar.close();
        last = e;
        if (!sidecar.log().contains("Address already in use")) {
          throw e;
        }
      }
    }
    throw last;
  }

  /** The recipe with the test's ports, paths and process settings. */
  static String configure(String recipe, Path run, int tlsPort, int probePort, int relayPort, TestPki.Issued server,
      Path clientCa) {
    String c = recipe;
    c = once(c, "error_log /dev/stderr notice;", "error_log " + run.resolve("error.log") + " info;");
    c = once(c, "pid /tmp/nginx.pid;", "pid " + run.resolve("nginx.pid") + ";\ndaemon off;"
        + (isRoot() ? "\nuser root;" : ""));
    c = once(c, "listen 8443 ssl http2;", "listen 127.0.0.1:" + tlsPort + " ssl http2;");
    c = once(c, "listen 8080 http2;", "listen 127.0.0.1:" + probePort + " http2;");
    c = once(c, "ssl_certificate /etc/kvrelay/tls/server/tls.crt;", "ssl_certificate " + server.certificate() + ";");
    c = once(c, "ssl_certificate_key /etc/kvrelay/tls/server/tls.key;",
        "ssl_certificate_key " + server.privateKey() + ";");
    c = once(c, "ssl_client_certificate /etc/kvrelay/tls/client-ca/ca.crt;", "ssl_client_certificate " + clientCa
        + ";");
    String upstream = "grpc_pass grpc://127.0.0.1:5561;";
    int n = count(c, upstream);
    if (n != 2) {
      throw new IllegalStateException("the recipe should pass to 127.0.0.1:5561 twice (WAN and probe), found " + n);
    }
    c = c.replace(upstream, "grpc_pass grpc://127.0.0.1:" + relayPort + ";");
    StringBuilder temp = new StringBuilder("http {\n");
    for (String kind : List.of("client_body", "proxy", "fastcgi", "uwsgi", "scgi")) {
      temp.append("  ").append(kind).append("_temp_path ").append(run.resolve(kind + "_temp")).append(";\n");
    }
    return once(c, "http {\n", temp.toString());
  }

  private static String once(String text, String find, String replacement) {
    int n = count(text, find);
    if (n != 1) {
      throw new IllegalStateException("the recipe should contain \"" + find + "\" once, found " + n);
    }
    return text.replace(find, replacement);
  }

  private static int count(String text, String find) {
    int n = 0;
    for (int i = text.indexOf(find); i >= 0; i = text.indexOf(find, i + find.length())) {
      n++;
    }
    return n;
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static int[] freePorts(int n) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        sockets.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  private void awaitListening() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_DEADLINE_MS);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("nginx exited with " + process.exitValue() + ":\n" + log());
      }
      if (accepts(tlsPort) && accepts(probePort)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new IOException("nginx did not listen within " + START_DEADLINE_MS + " ms:\n" + log());
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The TLS (WAN) listener's {@code host:port}. */
  public String tlsTarget() {
    return "127.0.0.1:" + tlsPort;
  }

  /** The plaintext probe listener's {@code host:port}. */
  public String probeTarget() {
    return "127.0.0.1:" + probePort;
  }

  /** True while the nginx master process runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The process output and error log, for failure messages. */
  public String log() {
    StringBuilder b = new StringBuilder();
    for (String f : List.of("stderr.log", "error.log")) {
      Path p = dir.resolve(f);
      try {
        if (Files.exists(p)) {
          b.append("--- ").append(f).append('\n').append(Files.readString(p, StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        b.append("(cannot read ").append(p).append(": ").append(e).append(")\n");
      }
    }
    return b.toString();
  }

  /** Stops nginx (SIGTERM: fast shutdown of master and workers), forcibly after 10 s. */
  @Override
  public void close() throws InterruptedException {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
