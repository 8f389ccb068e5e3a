package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-checks {@link Xxh3} against Debian's libxxhash on 1 000 000 random (input, seed) cases covering
 * every XXH3 length class, in one python process.
 *
 * <p>Input file (LE): {@code u32 poolLength, pool bytes, u32 caseCount, caseCount × (u32 offset, u32 length,
 * u64 seed)}; every case's input is {@code pool[offset, offset+length)}. Output: one u64 digest per case.
 * Set {@code -Dkvrelay.crosscheck.seed=N} to replay a run.
 */
class Xxh3LibxxhashCrossCheckTest {
  private static final int CASES = 1_000_000;
  private static final int POOL = 1 << 20;
  /** XXH3 length classes: 0, 1–3, 4–8, 9–16, 17–128, 129–240, &gt;240 (up to 300 here). */
  private static final int[][] LENGTH_CLASSES = {
    {0, 0}, {1, 3}, {4, 8}, {9, 16}, {17, 128}, {129, 240}, {241, 300}
  };

  private static final String SCRIPT =
      String.join(
          "\n",
          "import sys, struct, xxhash",
          "from array import array",
          "data = memoryview(open(sys.argv[1], 'rb').read())",
          "(pool_len,) = struct.unpack_from('<I', data, 0)",
          "pool = data[4:4 + pool_len]",
          "pos = 4 + pool_len",
          "(n,) = struct.unpack_from('<I', data, pos)",
          "pos += 4",
          "h = xxhash.xxh3_64_intdigest",
          "out = array('Q')",
          "for off, ln, seed in struct.iter_unpack('<IIQ', data[pos:pos + 16 * n]):",
          "    out.append(h(pool[off:off + ln], seed=seed))",
          "if sys.byteorder != 'little':",
          "    out.byteswap()",
          "open(sys.argv[2], 'wb').write(out.tobytes())",
          "");

  enum Kind {
    BYTES,
    LONG,
    LONG_LONG,
    SHORT
  }

  record Case(Kind kind, int offset, int length, long seed) {
    @Override
    public String toString() {
      return kind + "[offset=" + offset + ", length=" + length + ", seed=" + Long.toUnsignedString(seed) + "]";
    }
  }

  @Test
  void xxh3MatchesLibxxhashOnAMillionRandomCases(@TempDir Path dir) throws Exception {
    PythonXxhashReference.requireAvailable();
    long runSeed = Long.getLong("kvrelay.crosscheck.seed", System.nanoTime());
    SplittableRandom random = new SplittableRandom(runSeed);
    byte[] pool = new byte[POOL];
    random.nextBytes(pool);
    List<Case> cases = cases(random);
    assertThat(cases).hasSize(CASES);

    Path in = dir.resolve("xxh3-in.bin");
    Path out = dir.resolve("xxh3-out.bin");
    write(in, pool, cases);
    PythonXxhashReference.run(SCRIPT, in, out);
    ByteBuffer digests = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(digests.remaining()).isEqualTo(8L * CASES);

    ByteBuffer poolLe = ByteBuffer.wrap(pool).order(ByteOrder.LITTLE_ENDIAN);
    int mismatches = 0;
    List<String> firstMismatches = new ArrayList<>();
    int[] perClass = new int[LENGTH_CLASSES.length];
    for (Case c : cases) {
      long expected = digests.getLong();
      long actual = javaHash(c, pool, poolLe);
      if (c.kind == Kind.BYTES) {
        perClass[lengthClass(c.length)]++;
        if (c.seed == 0 && Xxh3.unseeded(pool, c.offset, c.length) != expected) {
          actual = ~expected; // count the unseeded entry point's mismatch too
        }
      }
      if (actual != expected) {
        mismatches++;
        if (firstMismatches.size() < 10) {
          firstMismatches.add(
              c + " expected " + Long.toUnsignedString(expected) + " got " + Long.toUnsignedString(actual));
        }
      }
    }
    assertThat(mismatches)
        .as("mismatches against libxxhash (replay with -Dkvrelay.crosscheck.seed=%d): %s", runSeed, firstMismatches)
        .isZero();
    for (int count : perClass) {
      assertThat(count).as("cases per XXH3 length class").isGreaterThan(10_000);
    }
  }

  private static long javaHash(Case c, byte[] pool, ByteBuffer poolLe) {
    Xxh3 x = Xxh3.withSeed(c.seed);
    switch (c.kind) {
      case LONG:
        return x.hashLong(poolLe.getLong(c.offset));
      case LONG_LONG:
        return x.hashLongLong(poolLe.getLong(c.offset), poolLe.getLong(c.offset + 8));
      case SHORT:
        return x.hashShort((pool[c.offset] & 0xFF) | (pool[c.offset + 1] & 0xFF) << 8);
      default:
        return x.hash(pool, c.offset, c.length);
    }
  }

  private static List<Case> cases(SplittableRandom random) {
    List<Case> cases = new ArrayList<>(CASES);
    long[] specialSeeds = {0L, 1L, 1337L, -1L, Long.MIN_VALUE, 0x5DEECE66D1B54A33L};
    // Every length 0..300 with the special seeds.
    for (int len = 0; len <= 300; len++) {
      for (long seed : specialSeeds) {
        cases.add(new Case(Kind.BYTES, random.nextInt(POOL - len + 1), len, seed));
      }
    }
    int fixed = 100_000;
    for (Kind kind : new Kind[] {Kind.LONG, Kind.LONG_LONG, Kind.SHORT}) {
      int len = kind == Kind.LONG ? 8 : kind == Kind.LONG_LONG ? 16 : 2;
      for (int i = 0; i < fixed; i++) {
        cases.add(new Case(kind, random.nextInt(POOL - len + 1), len, seed(random, i)));
      }
    }
    for (int i = 0; cases.size() < CASES; i++) {
      int[] range = LENGTH_CLASSES[i % LENGTH_CLASSES.length];
      int len = range[0] + random.nextInt(range[1] - range[0] + 1);
      cases.add(new Case(Kind.BYTES, random.nextInt(POOL - len + 1), len, seed(random, i / LENGTH_CLASSES.length)));
    }
    return cases;
  }

  /** Half the cases use seed 0, the rest a random u64. */
  private static long seed(SplittableRandom random, int i) {
    return (i & 1) == 0 ? 0L : random.nextLong();
  }

  private static int lengthClass(int len) {
    for (int k = 0; k < LENGTH_CLASSES.length; k++) {
      if (len <= LENGTH_CLASSES[k][1]) {
        return k;
      }
    }
    throw new IllegalStateException("length " + len);
  }

  private static void write(Path file, byte[] pool, List<Case> cases) throws IOException {
    try (OutputStream os = Files.newOutputStream(file);
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(os, 1 << 16))) {
      out.writeInt(Integer.reverseBytes(pool.length));
      out.write(pool);
      out.writeInt(Integer.reverseBytes(cases.size()));
      for (Case c : cases) {
        out.writeInt(Integer.reverseBytes(c.offset));
        out.writeInt(Integer.reverseBytes(c.length));
        out.writeLong(Long.reverseBytes(c.seed));
      }
    }
  }
}
