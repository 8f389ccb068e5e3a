package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: confined to the test thread. Runs {@code diag_caller.py} (Debian's {@code /usr/bin/python3},
 * stdlib only) to completion and returns its output lines; the script ends on its own, the wait is bounded.
 */
final class PythonCaller {
  static final String PYTHON = "/usr/bin/python3";

  private PythonCaller() {}

  /** Runs the script with {@code args}; fails unless it exits 0 within 60 s. */
  static List<String> run(Path dir, String... args) throws Exception {
    Path script = dir.resolve("diag_caller.py");
    if (!Files.exists(script)) {
      try (InputStream in = PythonCaller.class.getResourceAsStream("/python/diag_caller.py")) {
        if (in == null) {
          throw new IOException("missing test resource /python/diag_caller.py");
        }
        Files.copy(in, script);
      }
    }
    List<String> cmd = new ArrayList<>(List.of(PYTHON, "-u", script.toString()));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "caller", ".out");
    Path err = Files.createTempFile(dir, "caller", ".err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("diag_caller.py did not finish within 60 s; stderr: " + Files.readString(err));
    }
    if (p.exitValue() != 0) {
      throw new AssertionError("diag_caller.py exited " + p.exitValue() + "; stderr: " + Files.readString(err));
    }
    return Files.readAllLines(out, StandardCharsets.UTF_8);
  }

  /** Runs {@code call} with (transport, body) pairs; returns the RESULT objects in call order. */
  static List<JsonObject> call(Path dir, String... transportBodyPairs) throws Exception {
    List<String> args = new ArrayList<>(List.of("call"));
    args.addAll(List.of(transportBodyPairs));
    List<String> lines = run(dir, args.toArray(String[]::new));
    if (lines.isEmpty() || !lines.get(lines.size() - 1).equals("DONE")) {
      throw new AssertionError("diag_caller.py did not finish its calls: " + lines);
    }
    List<JsonObject> results = new ArrayList<>();
    for (String l : lines) {
      if (l.startsWith("RESULT ")) {
        results.add((JsonObject) Json.parse(l.substring(7)));
      }
    }
    return results;
  }
}
