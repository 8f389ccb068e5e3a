package dev.kvrelay.ckf.cbi1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.kvrelay.api.CkfFormat;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Confirms the encoder's body checksums with libxxhash through {@code /usr/bin/python3 -c "import
 * xxhash"}, an XXH3 implementation independent of hash4j. Skipped if the tool is missing, except when
 * {@code CI=true}, where a missing tool fails the build.
 */
class Cbi1PythonCrossCheckTest {
  private static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final String SCRIPT = String.join("\n",
      "import sys, xxhash",
      "for line in sys.stdin:",
      "    b = bytes.fromhex(line.strip())",
      "    print(xxhash.xxh3_64_intdigest(b[48:]) & 0xFFFFFFFF)",
      "");

  @Test
  void checksumsOfRandomFramesMatchLibxxhash() throws Exception {
    requireTool();
    List<byte[]> frames = randomFrames(new SplittableRandom(0xCB11));
    List<Long> expected = runPython(frames);
    assertThat(expected).hasSize(frames.size());
    for (int i = 0; i < frames.size(); i++) {
      byte[] f = frames.get(i);
      long stored = Integer.toUnsignedLong(Cbi1Reference.storedChecksum(f));
      assertThat(stored).as("frame %d of %d bytes", i, f.length).isEqualTo(expected.get(i));
    }
  }

  /** Deltas and chunks whose bodies span every XXH3 length class (≤16, ≤128, ≤240, stripes, blocks). */
  private static List<byte[]> randomFrames(SplittableRandom r) throws Cbi1EncodeException {
    List<byte[]> frames = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      int logB = 1 + r.nextInt(12);
      CkfFormat format = CkfFormat.of(r.nextLong(), 1L << logB);
      int count = i < 100 ? i : r.nextInt(2000);
      int[] buckets = new int[count];
      long[] words = new long[count];
      for (int k = 0; k < count; k++) {
        buckets[k] = r.nextInt(format.bucketCount());
        words[k] = r.nextLong();
      }
      frames.add(Cbi1Encoder.encodeDelta(format, r.nextLong(), r.nextLong(), r.nextLong(), buckets, words, count));
    }
    for (int logB = 1; logB <= 16; logB++) {
      CkfFormat format = CkfFormat.of(r.nextLong(), 1L << logB);
      long[] words = new long[format.bucketCount()];
      for (int k = 0; k < words.length; k++) {
        words[k] = r.nextInt(4) == 0 ? 0 : r.nextLong();
      }
      frames.addAll(Cbi1Encoder.encodeSnapshot(format, r.nextLong(), r.nextLong(), words));
    }
    CkfFormat big = CkfFormat.withDefaultSeed(1 << 20);
    long[] words = new long[big.bucketCount()];
    for (int k = 0; k < words.length; k++) {
      words[k] = r.nextLong();
    }
    frames.addAll(Cbi1Encoder.encodeSnapshot(big, 3, 4, words));
    return frames;
  }

  private static void requireTool() throws Exception {
    String why = null;
    if (!Files.isExecutable(PYTHON)) {
      why = PYTHON + " is missing";
    } else {
      Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import xxhash").redirectErrorStream(true).start();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        why = "python3 module xxhash is not importable";
      }
    }
    if (why != null) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("independent XXH3 reference required on CI: " + why);
      }
      Assumptions.abort(why);
    }
  }

  private static List<Long> runPython(List<byte[]> frames) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(PYTHON.toString(), "-c", SCRIPT).redirectErrorStream(true).start();
    List<Long> out = new ArrayList<>();
    Thread writer = new Thread(() -> {
      try (Writer w = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.US_ASCII)) {
        for (byte[] f : frames) {
          w.write(Cbi1Reference.hex(f));
          w.write('\n');
        }
      } catch (IOException e) {
        // the reader sees the process output / exit status
      }
    });
    writer.start();
    try (BufferedReader rd = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
      String line;
      while ((line = rd.readLine()) != null) {
        try {
          out.add(Long.parseLong(line.trim()));
        } catch (NumberFormatException e) {
          fail("python3 said: " + line);
        }
      }
    }
    writer.join(60_000);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    return out;
  }
}
