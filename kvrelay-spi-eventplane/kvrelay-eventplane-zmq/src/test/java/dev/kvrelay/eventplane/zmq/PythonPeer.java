package dev.kvrelay.eventplane.zmq;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: confined to the test thread (one daemon thread pumps its stdout into a queue). The independent
 * Python peer {@code src/test/python/zmq_peer.py} on Debian's libzmq and msgpack, as a child process with a JSON
 * line protocol on stdin and reply lines on stdout; {@link #close()} ends stdin, waits, then kills it.
 */
final class PythonPeer implements AutoCloseable {
  static final Path PYTHON = Path.of("/usr/bin/python3");
  static final Path SCRIPT = Path.of("src/test/python/zmq_peer.py");
  /** The worker id of the peer's warm-up markers. */
  static final long MARKER_WORKER = 0x7EADBEEF00000099L;

  private final Process process;
  private final Writer stdin;
  private final Path stderr;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  /** Reads stdout into {@link #lines}; ends at EOF (after the process closed stdout or exited). */
  private final Thread pump;
  private final List<String> seen = new ArrayList<>();
  private final String firstLine;

  private PythonPeer(List<String> args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(PYTHON.toString(), SCRIPT.toString()));
    cmd.addAll(args);
    stderr = Files.createTempFile("zmq-peer", ".stderr");
    ProcessBuilder b = new ProcessBuilder(cmd).redirectError(stderr.toFile());
    b.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    process = b.start();
    stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.pump = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "zmq-peer-stdout");
    pump.setDaemon(true);
    pump.start();
    firstLine = await(args.get(0).equals("broker") ? "BROKER " : "READY ", 30);
  }

  /** A direct-mode publisher with {@code publisherId}, bound to a free loopback port. */
  static PythonPeer directPublisher(long publisherId) throws Exception {
    return new PythonPeer(List.of("publisher", Long.toUnsignedString(publisherId), "direct"));
  }

  /** A direct-mode publisher with {@code publisherId} bound to {@code endpoint} (a restart on the old port). */
  static PythonPeer directPublisherAt(long publisherId, String endpoint) throws Exception {
    return new PythonPeer(List.of("publisher", Long.toUnsignedString(publisherId), "direct", endpoint));
  }

  /** Kills the process at once (SIGKILL: no orderly socket close) and waits until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("zmq_peer.py did not die within 10 s of SIGKILL");
    }
  }

  /** A broker-mode publisher connected to {@code xsub}, frame 0 the subject of endpoint {@code ns/comp/ep}. */
  static PythonPeer brokerPublisher(long publisherId, String xsub, String ns, String comp, String ep) throws Exception {
    return new PythonPeer(List.of("publisher", Long.toUnsignedString(publisherId), "broker", xsub, ns, comp, ep));
  }

  /** An XSUB/XPUB proxy on two free loopback ports. */
  static PythonPeer broker() throws Exception {
    return new PythonPeer(List.of("broker"));
  }

  /** The publisher's endpoint ({@code READY <endpoint>}). */
  String endpoint() {
    return firstLine.split(" ")[1];
  }

  /** The broker's XSUB endpoint. */
  String xsub() {
    return firstLine.split(" ")[1];
  }

  /** The broker's XPUB endpoint. */
  String xpub() {
    return firstLine.split(" ")[2];
  }

  /** Sends one command line. */
  void send(String json) throws IOException {
    stdin.write(json);
    stdin.write('\n');
    stdin.flush();
  }

  /**
   * Makes the peer publish warm-up markers on {@code topic} until {@code recorder} has one more than before (the SUB
   * is connected and subscribed); the peer's next command stops them.
   */
  void warmUp(PeerRecorder recorder, String topic, long seconds) throws Exception {
    long before = recorder.markers.get();
    send("{\"op\":\"warmup\",\"topic\":\"" + topic + "\"}");
    PeerRecorder.poll(() -> recorder.markers.get() > before, seconds, () -> "a warm-up marker");
  }

  /** Sends a command and waits for its reply line starting with {@code replyPrefix}. */
  String call(String json, String replyPrefix, long seconds) throws IOException, InterruptedException {
    send(json);
    return await(replyPrefix, seconds);
  }

  /** The next stdout line starting with {@code prefix}; fails after {@code seconds} or when the process ended. */
  String await(String prefix, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line == null) {
        // ended only once the pump has read stdout to its end: the process may have exited with its last lines
        // still in the pipe, not yet in the queue
        if (!pump.isAlive() && lines.isEmpty()) {
          break;
        }
        continue;
      }
      seen.add(line);
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new AssertionError("no '" + prefix + "' line from zmq_peer.py within " + seconds + " s; seen " + seen
        + "\nstderr: " + stderrText());
  }

  private String stderrText() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      stdin.close();
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
    try {
      Files.deleteIfExists(stderr);
    } catch (IOException ignored) {
      // a temp file
    }
  }

  /** Skips the calling test when python3-zmq / python3-msgpack are missing, except with {@code CI=true} (fails). */
  static void requirePeer() {
    boolean ok = false;
    if (Files.isExecutable(PYTHON)) {
      try {
        Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import zmq, msgpack").redirectErrorStream(true).start();
        ok = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
      } catch (IOException e) {
        ok = false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (!ok) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but /usr/bin/python3 cannot import zmq and msgpack (apt-get install python3-zmq python3-msgpack)");
      }
      assumeTrue(false, "python3-zmq / python3-msgpack not installed; ZMQ interop skipped");
    }
  }
}
