package dev.kvrelay.discovery.file;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.api.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: confined to the test thread (one daemon thread pumps its stdout into a queue). The independent
 * Python file-KV worker ({@code src/test/python/file_kv_worker.py}, written from {@code plugins-wire §8}) as a child
 * process: one JSON command per stdin line, one reply line each.
 */
final class PythonWorker implements AutoCloseable {
  static final Path PYTHON = Path.of("/usr/bin/python3");
  static final Path SCRIPT = Path.of("src/test/python/file_kv_worker.py");
  private static final long STEP_SECONDS = 20;

  private final Process process;
  private final Writer stdin;
  private final Path stderr;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final String connectionIdHex;

  /** Starts a worker on {@code root} with the given TTL (the test is skipped if /usr/bin/python3 is missing). */
  static PythonWorker start(Path root, Duration ttl, Path scratch) throws IOException, InterruptedException {
    assumeTrue(Files.isExecutable(PYTHON), "/usr/bin/python3 is not installed");
    Path stderr = Files.createTempFile(scratch, "worker", ".stderr");
    ProcessBuilder b = new ProcessBuilder(List.of(PYTHON.toString(), SCRIPT.toString(), root.toString(),
        Double.toString(ttl.toMillis() / 1000.0))).redirectError(stderr.toFile());
    b.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    return new PythonWorker(b.start(), stderr);
  }

  private PythonWorker(Process process, Path stderr) throws IOException, InterruptedException {
    this.process = process;
    this.stderr = stderr;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread pump = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "python-file-kv-worker-stdout");
    pump.setDaemon(true);
    pump.start();
    this.connectionIdHex = next().substring("ready ".length());
  }

  /** The worker's connection id, lowercase hex (as in its keys). */
  String idHex() {
    return connectionIdHex;
  }

  /** The worker's connection id. */
  long id() {
    return Long.parseUnsignedLong(connectionIdHex, 16);
  }

  /** Sends one command and returns the text after {@code "ok <op>"}; fails on an error reply or silence. */
  String call(JsonObject command) throws IOException, InterruptedException {
    String op = ((dev.kvrelay.api.json.JsonString) command.get("op")).value();
    stdin.write(command.toJson());
    stdin.write('\n');
    stdin.flush();
    String reply = next();
    String ok = "ok " + op;
    if (!reply.startsWith(ok)) {
      throw new AssertionError("python worker: " + reply + "\nstderr: " + stderrText());
    }
    return reply.substring(ok.length()).trim();
  }

  /** Holds ({@code false}) or resumes the worker's sweep of other processes' expired files. */
  void sweep(boolean enabled) throws IOException, InterruptedException {
    call(JsonObject.builder().put("op", "sweep").put("enabled", enabled).build());
  }

  String put(String bucket, String key, String value) throws IOException, InterruptedException {
    return call(JsonObject.builder().put("op", "put").put("bucket", bucket).put("key", key).put("value", value).build());
  }

  void putName(String bucket, String name, String value) throws IOException, InterruptedException {
    call(JsonObject.builder().put("op", "put_name").put("bucket", bucket).put("name", name).put("value", value)
        .build());
  }

  void delete(String bucket, String key) throws IOException, InterruptedException {
    call(JsonObject.builder().put("op", "delete").put("bucket", bucket).put("key", key).build());
  }

  /** Cleans up like Dynamo's {@code shutdown()} and exits. */
  void shutdown() throws IOException, InterruptedException {
    call(JsonObject.builder().put("op", "shutdown").build());
    process.waitFor(STEP_SECONDS, TimeUnit.SECONDS);
  }

  /** Kills the process with SIGKILL: nothing is cleaned up and keep-alive stops. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(STEP_SECONDS, TimeUnit.SECONDS);
  }

  private String next() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_SECONDS);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null) {
        return line;
      }
      if (!process.isAlive() && lines.isEmpty()) {
        break;
      }
    }
    throw new AssertionError("no reply from the python worker within " + STEP_SECONDS + " s\nstderr: " + stderrText());
  }

  String stderrText() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** Kills the process if it still runs. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(STEP_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
