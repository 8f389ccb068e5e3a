package dev.kvrelay.benchmarks;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: started and closed by one thread. A Debian {@code nats-server} child process on 127.0.0.1 and a
 * free port (no authorization, log in a temporary file), for the benchmarks; {@link #cpuNanos()} reads its CPU time
 * from {@code /proc}.
 */
final class NatsServerProcess implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/sbin/nats-server");
  private static final long START_NANOS = TimeUnit.SECONDS.toNanos(20);

  private final Process process;
  private final int port;

  private NatsServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Starts the server and waits (at most 20 s) until it accepts connections.
   *
   * @throws IllegalStateException if the binary is missing, or the server exits or does not listen in time
   */
  static NatsServerProcess start() throws Exception {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(BINARY + " is missing (apt-get install nats-server)");
    }
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path log = Files.createTempFile("bench-nats-", ".log");
    Process p = new ProcessBuilder(BINARY.toString(), "-a", "127.0.0.1", "-p", Integer.toString(port))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    NatsServerProcess server = new NatsServerProcess(p, port);
    long deadline = System.nanoTime() + START_NANOS;
    while (true) {
      if (!p.isAlive()) {
        throw new IllegalStateException("nats-server exited with " + p.exitValue() + "; log " + log);
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return server;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          server.close();
          throw new IllegalStateException("nats-server not listening on " + port + " within 20 s; log " + log, e);
        }
        Thread.sleep(20);
      }
    }
  }

  String url() {
    return "nats://127.0.0.1:" + port;
  }

  /** The server's user + system CPU time in ns ({@code /proc/<pid>/stat}, USER_HZ = 100); 0 if unreadable. */
  long cpuNanos() {
    try {
      String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
