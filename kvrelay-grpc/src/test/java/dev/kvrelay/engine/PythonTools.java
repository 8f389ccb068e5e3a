package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe (stateless): the Debian tool chain the Python interop tests share: /usr/bin/python3 with
 * python3-grpcio, python3-protobuf and python3-xxhash, and /usr/bin/protoc generating the Python message classes from
 * our relay.proto at test time. A missing tool skips the calling test, except with {@code CI=true}, where it fails.
 */
final class PythonTools {
  static final Path PYTHON = Path.of("/usr/bin/python3");
  static final Path PROTOC = Path.of("/usr/bin/protoc");
  static final Path PROTO_ROOT = Path.of("src/main/proto");
  static final String PROTO_FILE = "dynamo/kvrelay/v1/relay.proto";

  private PythonTools() {}

  /** Runs {@code command} to completion within {@code seconds}; true iff it exited 0. */
  static boolean run(List<String> command, long seconds) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
      if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static boolean toolsAvailable() {
    return Files.isExecutable(PYTHON) && Files.isExecutable(PROTOC)
        && run(List.of(PYTHON.toString(), "-c", "import grpc, google.protobuf, xxhash; xxhash.xxh3_64_intdigest"),
            20);
  }

  /** Skips (or, with CI=true, fails) the calling test when a tool is missing. */
  static void requireTools() {
    if (!toolsAvailable()) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but /usr/bin/python3 cannot import grpc, google.protobuf and xxhash, or /usr/bin/protoc is "
            + "missing (apt-get install python3-grpcio python3-protobuf python3-xxhash protobuf-compiler)");
      }
      assumeTrue(false, "python3-grpcio / python3-protobuf / python3-xxhash / protoc not installed; interop skipped");
    }
  }

  /** Debian's protoc generates the Python message classes from our relay.proto into {@code gen}, at test time. */
  static void generateMessages(Path gen) {
    assertThat(run(List.of(PROTOC.toString(), "--python_out=" + gen, "-I", PROTO_ROOT.toString(), PROTO_FILE), 30))
        .as("protoc --python_out succeeded").isTrue();
    assertThat(gen.resolve("dynamo/kvrelay/v1/relay_pb2.py")).exists();
  }
}
