package dev.kvrelay.engine;

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
 * Thread-safe for {@link #request} (serialized); confined to one test thread otherwise: a child process (a test
 * peer such as a Python worker) spoken to by lines — a request line on its stdin, answer lines from its stdout,
 * read by a daemon pump into a queue; its stderr goes to a temp file quoted in every failure.
 */
public final class LineProcess implements AutoCloseable {
  private final Process process;
  private final Writer stdin;
  private final Path stderr;
  private final String name;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private LineProcess(List<String> command, String name) throws IOException {
    this.name = name;
    stderr = Files.createTempFile(name, ".stderr");
    ProcessBuilder b = new ProcessBuilder(command).redirectError(stderr.toFile());
    b.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    process = b.start();
    stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread pump = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, name);
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts {@code command}; {@code name} names the pump thread, the stderr file and failures. */
  public static LineProcess start(List<String> command, String name) throws IOException {
    return new LineProcess(command, name);
  }

  /** The next stdout line, which must start with {@code prefix} within {@code timeout} (else AssertionError). */
  public String next(String prefix, Duration timeout) throws InterruptedException, IOException {
    String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null || !line.startsWith(prefix)) {
      throw new AssertionError(name + ": expected " + prefix + "..., got " + line + "; stderr:\n" + stderrText());
    }
    return line;
  }

  /** Writes {@code line} to stdin and returns the next stdout line, which must start with {@code prefix}. */
  public synchronized String request(String line, String prefix, Duration timeout)
      throws InterruptedException, IOException {
    stdin.write(line + "\n");
    stdin.flush();
    return next(prefix, timeout);
  }

  /** The process. */
  public Process process() {
    return process;
  }

  /** What the process wrote to stderr so far. */
  public String stderrText() throws IOException {
    return Files.readString(stderr);
  }

  /** Kills the process (a crash) and waits up to 10 s for it to end. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** Closes stdin (the peer's cue to exit cleanly), waits up to 10 s, then kills; deletes the stderr file. */
  @Override
  public void close() throws InterruptedException, IOException {
    try {
      stdin.close();
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      kill();
    }
    Files.deleteIfExists(stderr);
  }
}
