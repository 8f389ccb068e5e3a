package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The independent XXH3 reference: Debian's libxxhash through {@code /usr/bin/python3 -I} and its
 * {@code xxhash} module. Missing reference: the test fails when {@code CI=true}, is skipped otherwise.
 */
final class PythonXxhashReference {
  static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final long TIMEOUT_SECONDS = 120;

  private PythonXxhashReference() {}

  /** Skips (locally) or fails (CI) unless {@code /usr/bin/python3} can {@code import xxhash}. */
  static void requireAvailable() throws IOException, InterruptedException {
    String problem = null;
    if (!Files.isExecutable(PYTHON)) {
      problem = PYTHON + " is missing";
    } else {
      Process p =
          new ProcessBuilder(PYTHON.toString(), "-I", "-c", "import xxhash")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        problem = "python3 -c 'import xxhash' timed out";
      } else if (p.exitValue() != 0) {
        problem = "python3 module xxhash is missing (Debian package python3-xxhash)";
      }
    }
    if (problem != null) {
      if ("true".equals(System.getenv("CI"))) {
        fail("independent XXH3 reference unavailable on CI: " + problem);
      }
      Assumptions.abort("independent XXH3 reference unavailable: " + problem);
    }
  }

  /** Runs {@code script} once with arguments {@code input output}; fails the test on a non-zero exit. */
  static void run(String script, Path input, Path output) throws IOException, InterruptedException {
    Path log = Files.createTempFile("kvrelay-xxhash-", ".log");
    try {
      Process p =
          new ProcessBuilder(List.of(PYTHON.toString(), "-I", "-c", script, input.toString(), output.toString()))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("python reference timed out after " + TIMEOUT_SECONDS + " s");
      }
      assertThat(p.exitValue())
          .as("python reference exit code; output:%n%s", Files.readString(log, StandardCharsets.UTF_8))
          .isZero();
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
