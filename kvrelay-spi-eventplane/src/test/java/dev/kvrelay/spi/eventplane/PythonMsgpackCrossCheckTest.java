package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Cross-checks the codec against an independent msgpack implementation, Debian's python3-msgpack: for
 * random RouterEvents, ActiveLoads and envelopes, Python's {@code packb} of the spec-shaped value must
 * produce exactly the codec's bytes, and Python's {@code unpackb} of the codec's bytes must give that
 * value back. Skipped when {@code /usr/bin/python3} cannot import msgpack, except with {@code CI=true},
 * where that is a failure.
 */
class PythonMsgpackCrossCheckTest {
  private static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final int CASES = 1_500;

  private static final String SCRIPT = String.join("\n",
      "import sys, json, msgpack",
      "def hook(d):",
      "    if len(d) == 1 and '$bin' in d: return bytes.fromhex(d['$bin'])",
      "    return d",
      "bad = 0; n = 0",
      "for i, line in enumerate(sys.stdin):",
      "    n += 1",
      "    tree_json, hexed = line.rstrip('\\n').split('\\t')",
      "    tree = json.loads(tree_json, object_hook=hook)",
      "    packed = msgpack.packb(tree, use_bin_type=True)",
      "    if packed.hex() != hexed:",
      "        bad += 1; print('PACK', i, packed.hex(), hexed)",
      "    back = msgpack.unpackb(bytes.fromhex(hexed), raw=False)",
      "    if back != tree:",
      "        bad += 1; print('UNPACK', i, repr(back)[:400])",
      "print('DONE', n, bad)",
      "");

  static boolean pythonHasMsgpack() {
    if (!Files.isExecutable(PYTHON)) {
      return false;
    }
    try {
      Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import msgpack").redirectErrorStream(true).start();
      return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Test
  void codecBytesEqualPythonMsgpackForRandomValues() throws Exception {
    if (!pythonHasMsgpack()) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but /usr/bin/python3 cannot import msgpack (apt-get install python3-msgpack)");
      }
      assumeTrue(false, "python3-msgpack not installed; cross-check skipped");
    }
    List<String> lines = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(0x5EED_2024L);
    for (int i = 0; i < CASES; i++) {
      Object tree;
      byte[] bytes;
      switch (i % 3) {
        case 0 -> {
          RouterEvent e = EventGens.routerEvent(r);
          tree = SpecTree.routerEvent(e);
          bytes = EventPlaneCodec.encodeRouterEvent(e);
        }
        case 1 -> {
          ActiveLoad l = EventGens.activeLoad(r);
          tree = SpecTree.activeLoad(l);
          bytes = EventPlaneCodec.encodeActiveLoad(l);
        }
        default -> {
          EventEnvelope env = EventGens.envelope(r, r.nextBoolean() ? "kv-events" : EventGens.text(r));
          byte[] payload = new byte[r.nextInt(4) == 0 ? 256 + r.nextInt(70_000) : r.nextInt(300)];
          for (int j = 0; j < payload.length; j++) {
            payload[j] = (byte) r.nextInt(256);
          }
          tree = SpecTree.envelope(env, payload);
          bytes = EventPlaneCodec.encodeEnvelope(env, payload);
        }
      }
      lines.add(SpecTree.json(tree) + "\t" + Hex.of(bytes));
    }
    Process p = new ProcessBuilder(PYTHON.toString(), "-c", SCRIPT).redirectErrorStream(true).start();
    Thread feeder = new Thread(() -> {
      try (Writer w = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
        for (String line : lines) {
          w.write(line);
          w.write('\n');
        }
      } catch (IOException ignored) {
        // the reader below reports what Python printed
      }
    });
    feeder.start();
    List<String> output = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        output.add(line);
      }
    }
    feeder.join();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(output).as("python output").containsExactly("DONE " + CASES + " 0");
  }
}
