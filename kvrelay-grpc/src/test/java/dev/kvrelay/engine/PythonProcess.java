package dev.kvrelay.engine;

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
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the test thread (its stdout is read by one daemon pump thread into a queue). A Python
 * interop script run as a child process: line protocol on stdout and stdin, stderr to a file quoted in failures;
 * closing ends stdin (the scripts stop on EOF), waits briefly, then kills it.
 */
final class PythonProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Writer stdin;
  private final Path stderr;
  private final long stepSeconds;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  /** Reads stdout into {@link #lines}; ends at EOF (after the process closed stdout or exited). */
  private final Thread pump;
  private final List<String> seen = new ArrayList<>();

  /** Starts {@code command} (stderr to {@code stderr}); {@code stepSeconds} bounds every {@link #awaitLine}. */
  static PythonProcess start(String name, List<String> command, Path stderr, long stepSeconds) throws IOException {
    ProcessBuilder b = new ProcessBuilder(command).redirectError(stderr.toFile());
    b.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    return new PythonProcess(name, b.start(), stderr, stepSeconds);
  }

  private PythonProcess(String name, Process process, Path stderr, long stepSeconds) {
    this.name = name;
    this.process = process;
    this.stderr = stderr;
    this.stepSeconds = stepSeconds;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.pump = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the process ended; awaitLine reports what was seen
      }
    }, name + "-stdout");
    pump.setDaemon(true);
    pump.start();
  }

  /**
   * The next stdout line starting with {@code prefix}, skipping others; fails after {@code stepSeconds}, when the
   * process has ended with nothing left, or when a line starting with {@code endPrefix} (the script's final report,
   * if not what is awaited) comes first.
   */
  String awaitLine(String prefix, @Nullable String endPrefix) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(stepSeconds);
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
      seen.add(line.length() > 300 ? line.substring(0, 300) + "…" : line);
      if (line.startsWith(prefix)) {
        return line;
      }
      if (endPrefix != null && line.startsWith(endPrefix) && !prefix.equals(endPrefix)) {
        throw new AssertionError("the python " + name + " ended early: " + line + "\nstderr: " + stderrText());
      }
    }
    throw new AssertionError("no '" + prefix + "' line from the python " + name + " within " + stepSeconds
        + " s; seen " + seen + "\nstderr: " + stderrText());
  }

  /** Writes one line to the script's stdin. */
  void send(String line) throws IOException {
    stdin.write(line);
    stdin.write('\n');
    stdin.flush();
  }

  /** Waits for the script to exit on its own; true if it did within {@code stepSeconds}. */
  boolean awaitExit() throws InterruptedException {
    return process.waitFor(stepSeconds, TimeUnit.SECONDS);
  }

  /** The script's stderr so far (for failure messages). */
  String stderrText() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** Closes stdin (the scripts stop on EOF), waits up to 3 s, then kills the process. */
  @Override
  public void close() throws InterruptedException {
    try {
      stdin.close();
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(3, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(2, TimeUnit.SECONDS);
    }
  }
}
