package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Not thread-safe: confined to the test thread. The launcher ({@link Main}) in a child JVM on the test class path
 * (or a filtered copy of it), with a chosen environment. Output goes to files, not pipes: {@link Process#destroy()}
 * closes the pipes, so output written while stopping would be lost.
 */
public final class LauncherProcess implements AutoCloseable {
  public final Process process;
  final Path dir;
  final Path stdout;
  final Path stderr;

  private LauncherProcess(List<String> command, Map<String, String> env) throws IOException {
    dir = Files.createTempDirectory("kvrelay-launcher");
    stdout = dir.resolve("stdout.txt");
    stderr = dir.resolve("stderr.txt");
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
    // A clean environment: only what the test names, plus PATH and HOME (no DYN_* of the machine leaks in).
    Map<String, String> childEnv = pb.environment();
    String path = childEnv.get("PATH");
    String home = childEnv.get("HOME");
    childEnv.clear();
    if (path != null) {
      childEnv.put("PATH", path);
    }
    if (home != null) {
      childEnv.put("HOME", home);
    }
    childEnv.putAll(env);
    process = pb.start();
  }

  /** {@code Main args} on the test class path. */
  public static LauncherProcess start(Map<String, String> env, String... args) throws IOException {
    return start(entry -> true, env, args);
  }

  /** {@code Main args} on the class-path entries {@code keep} accepts. */
  static LauncherProcess start(Predicate<String> keep, Map<String, String> env, String... args) throws IOException {
    String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).filter(keep)
        .collect(Collectors.joining(File.pathSeparator));
    List<String> command = new ArrayList<>(List.of(java(), "-cp", classPath, Main.class.getName()));
    command.addAll(List.of(args));
    return new LauncherProcess(command, env);
  }

  /**
   * {@code Main args} on the test class path, started by {@code bash} with {@code SIG<signal>} ignored (as a
   * shell's background job starts with SIGINT ignored).
   */
  static LauncherProcess startIgnoring(String signal, Map<String, String> env, String... args) throws IOException {
    StringBuilder command = new StringBuilder("trap '' ").append(signal).append("; exec");
    for (String part : List.of(java(), "-cp", System.getProperty("java.class.path"), Main.class.getName())) {
      command.append(" '").append(part.replace("'", "'\\''")).append('\'');
    }
    for (String arg : args) {
      command.append(" '").append(arg.replace("'", "'\\''")).append('\'');
    }
    return new LauncherProcess(List.of("/bin/bash", "-c", command.toString()), env);
  }

  /** Whether this process inherited {@code SIGINT} as ignored (its children inherit it too), from /proc. */
  static boolean sigintIgnored() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return false;
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseLong(line.substring(7).trim(), 16) & (1L << 1)) != 0; // bit n-1 for signal n = 2
      }
    }
    return false;
  }

  /** {@code java -jar jar args}. */
  static LauncherProcess startJar(Path jar, Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(java(), "-jar", jar.toString()));
    command.addAll(List.of(args));
    return new LauncherProcess(command, env);
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  public List<String> stdoutLines() throws IOException {
    return Files.readAllLines(stdout, StandardCharsets.UTF_8);
  }

  public String stderr() throws IOException {
    return Files.readString(stderr, StandardCharsets.UTF_8);
  }

  /**
   * Waits (deadline 60 s) until standard output has a line matching {@code pattern}; returns its match. Fails as
   * soon as the child exits without it.
   */
  public Matcher awaitLine(Pattern pattern) throws IOException, InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      for (String line : stdoutLines()) {
        Matcher m = pattern.matcher(line);
        if (m.matches()) {
          return m;
        }
      }
      assertThat(process.isAlive()).as("child alive; stdout %s; stderr:%n%s", stdoutLines(), stderr()).isTrue();
      assertThat(System.nanoTime()).as("a line %s within 60 s; stdout %s; stderr:%n%s", pattern, stdoutLines(),
          stderr()).isLessThan(until);
      Thread.sleep(20);
    }
  }

  /** Waits up to 60 s for the exit and returns the status. */
  int awaitExit() throws IOException, InterruptedException {
    assertThat(process.waitFor(60, TimeUnit.SECONDS))
        .as("the child exits within 60 s; stdout %s; stderr:%n%s", stdoutLines(), stderr()).isTrue();
    return process.exitValue();
  }

  /** Sends SIGINT through {@code /bin/kill}. */
  void interrupt() throws IOException, InterruptedException {
    Process k = new ProcessBuilder("/bin/kill", "-INT", Long.toString(process.pid())).start();
    assertThat(k.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(k.exitValue()).isZero();
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
