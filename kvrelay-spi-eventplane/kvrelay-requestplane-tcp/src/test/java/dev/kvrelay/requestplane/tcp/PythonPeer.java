package dev.kvrelay.requestplane.tcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (lines are collected by one daemon pump thread into a concurrent list; sends are synchronized):
 * one of this module's Python peers ({@code /usr/bin/python3}, stdlib sockets) run as a child process, with
 * a line protocol on stdout / stdin; closing ends stdin (the scripts stop on EOF), then kills it.
 */
final class PythonPeer implements AutoCloseable {
  static final String PYTHON = "/usr/bin/python3";
  private final Process process;
  private final Writer stdin;
  private final Path stderr;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private volatile @Nullable Consumer<String> listener;

  private PythonPeer(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread pump = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
          Consumer<String> l = listener;
          if (l != null) {
            l.accept(line);
          }
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "python-peer-stdout");
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts the script {@code resource} (under {@code /python/}) with {@code args}. */
  static PythonPeer start(String resource, Path dir, String... args) throws IOException {
    Path script = dir.resolve(resource);
    try (InputStream in = PythonPeer.class.getResourceAsStream("/python/" + resource)) {
      if (in == null) {
        throw new IOException("missing test resource /python/" + resource);
      }
      Files.copy(in, script);
    }
    List<String> cmd = new ArrayList<>(List.of(PYTHON, "-u", script.toString()));
    cmd.addAll(List.of(args));
    Path err = dir.resolve(resource + ".stderr");
    ProcessBuilder b = new ProcessBuilder(cmd).redirectError(err.toFile());
    b.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    return new PythonPeer(b.start(), err);
  }

  /** Calls {@code l} with every later line, on the pump thread. */
  void onLine(Consumer<String> l) {
    this.listener = l;
  }

  /** Every stdout line so far. */
  List<String> lines() {
    return List.copyOf(lines);
  }

  /** The number of lines so far (a mark for {@link #await(int, Predicate, Duration, String)}). */
  int mark() {
    return lines.size();
  }

  /** The first line (from index 0) matching {@code p}, polling until {@code within} passes. */
  String await(Predicate<String> p, Duration within, String what) throws InterruptedException {
    return await(0, p, within, what);
  }

  /** The first line at index {@code from} or later matching {@code p}, polling until {@code within} passes. */
  String await(int from, Predicate<String> p, Duration within, String what) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      List<String> now = lines();
      for (int i = from; i < now.size(); i++) {
        if (p.test(now.get(i))) {
          return now.get(i);
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " from the python peer within " + within + "; lines " + lines()
            + "\nstderr: " + stderrText());
      }
      Thread.sleep(20);
    }
  }

  /** The first line starting with {@code prefix}. */
  String await(String prefix, Duration within) throws InterruptedException {
    return await(l -> l.startsWith(prefix), within, "'" + prefix + "' line");
  }

  /** Writes one stdin line. */
  synchronized void send(String line) throws IOException {
    stdin.write(line);
    stdin.write('\n');
    stdin.flush();
  }

  /** Waits for the process to exit on its own. */
  boolean awaitExit(Duration within) throws InterruptedException {
    return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
  }

  String stderrText() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      synchronized (this) {
        stdin.close();
      }
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(3, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(2, TimeUnit.SECONDS);
    }
  }
}
