package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvQueryHashFormat;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-checks block and sequence hashes of random requests (standard, EAGLE, salted, multimodal with
 * mm_hash identifiers) against an independent python implementation of {@code runtime-inputs.md} §7 on
 * libxxhash.
 *
 * <p>Input file (LE): {@code u32 caseCount}, then per case {@code u8 format (1 standard, 2 EAGLE), u32
 * blockSize, str lora, str namespace, u32 n, n × u32 token, u32 mmBlocks, mmBlocks × (u32 k, k × str
 * identifier)} with {@code str = u32 byteLength, UTF-8}. Output per case: {@code u32 count, count × u64
 * block hash, count × u64 sequence hash}.
 */
class TokenHashingLibxxhashCrossCheckTest {
  private static final int CASES = 4_000;

  private static final String SCRIPT =
      String.join(
          "\n",
          "import sys, struct, string, xxhash",
          "M = (1 << 64) - 1",
          "h = xxhash.xxh3_64_intdigest",
          "HEX = set(string.hexdigits)",
          "data = open(sys.argv[1], 'rb').read()",
          "pos = 0",
          "def u32():",
          "    global pos",
          "    (v,) = struct.unpack_from('<I', data, pos); pos += 4; return v",
          "def text():",
          "    global pos",
          "    n = u32(); s = data[pos:pos + n].decode('utf-8'); pos += n; return s",
          "def salt(lora, ns):",
          "    s = 1337",
          "    if lora: s = (s + h(lora.encode('utf-8'), seed=0)) & M",
          "    if ns: s = (s + h(ns.encode('utf-8'), seed=1)) & M",
          "    return s",
          "def mm_hash(ident):",
          "    if len(ident) == 64 and all(c in HEX for c in ident): return int(ident[:16], 16)",
          "    return h(ident.encode('utf-8'), seed=0)",
          "out = bytearray()",
          "for _ in range(u32()):",
          "    fmt = data[pos]; pos += 1",
          "    bs = u32(); lora = text(); ns = text()",
          "    n = u32(); tokens = struct.unpack_from('<%dI' % n, data, pos); pos += 4 * n",
          "    mm = []",
          "    for _ in range(u32()):",
          "        mm.append([mm_hash(text()) for _ in range(u32())])",
          "    seed = salt(lora, ns)",
          "    if fmt == 1:",
          "        count = n // bs if bs > 0 else 0; width = bs",
          "    else:",
          "        count = (n - 1) // bs if n > 0 else 0; width = bs + 1",
          "    blocks = []",
          "    for i in range(count):",
          "        window = tokens[i * bs:i * bs + width]",
          "        b = struct.pack('<%dI' % width, *window)",
          "        if i < len(mm):",
          "            b += b''.join(struct.pack('<Q', x) for x in sorted(mm[i]))",
          "        blocks.append(h(b, seed=seed))",
          "    seqs = []",
          "    for b in blocks:",
          "        seqs.append(b if not seqs else h(struct.pack('<QQ', seqs[-1], b), seed=1337))",
          "    out += struct.pack('<I', count)",
          "    out += struct.pack('<%dQ' % count, *blocks)",
          "    out += struct.pack('<%dQ' % count, *seqs)",
          "open(sys.argv[2], 'wb').write(out)",
          "");

  record Request(
      KvQueryHashFormat format, int blockSize, String lora, String namespace, int[] tokens, String[][] mm) {}

  @Test
  void blockAndSequenceHashesMatchIndependentPythonReference(@TempDir Path dir) throws Exception {
    PythonXxhashReference.requireAvailable();
    long runSeed = Long.getLong("kvrelay.crosscheck.seed", System.nanoTime());
    SplittableRandom random = new SplittableRandom(runSeed);
    List<Request> requests = new ArrayList<>();
    for (int i = 0; i < CASES; i++) {
      requests.add(request(random, i));
    }
    Path in = dir.resolve("blocks-in.bin");
    Path out = dir.resolve("blocks-out.bin");
    write(in, requests);
    PythonXxhashReference.run(SCRIPT, in, out);
    ByteBuffer expected = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);

    int multimodalBlocks = 0;
    int eagleBlocks = 0;
    int largeWindowBlocks = 0;
    for (int i = 0; i < CASES; i++) {
      Request r = requests.get(i);
      int count = expected.getInt();
      long[] blocks = new long[count];
      long[] sequence = new long[count];
      expected.asLongBuffer().get(blocks);
      expected.position(expected.position() + 8 * count);
      expected.asLongBuffer().get(sequence);
      expected.position(expected.position() + 8 * count);

      String what = "replay with -Dkvrelay.crosscheck.seed=" + runSeed + ", case " + i + ": " + describe(r);
      TokenBlockHasher hasher =
          TokenBlockHasher.create(r.format, r.blockSize, BlockHashSalt.of(r.lora, r.namespace));
      MultimodalBlockHashes mm = multimodal(r.mm);
      assertThat(hasher.blockHashes(r.tokens, mm)).as(what).containsExactly(blocks);
      assertThat(hasher.sequenceHashes(r.tokens, mm)).as(what).containsExactly(sequence);
      assertThat(SequenceHash.chain(blocks)).as(what).containsExactly(sequence);

      // The allocation-free entry point over a sub-range of a padded array agrees.
      int pad = random.nextInt(4);
      int[] padded = new int[pad + r.tokens.length + random.nextInt(4)];
      Arrays.fill(padded, 0xDEAD);
      System.arraycopy(r.tokens, 0, padded, pad, r.tokens.length);
      long[] into = new long[count + 1];
      assertThat(hasher.sequenceHashes(padded, pad, r.tokens.length, mm, into, 1)).as(what).isEqualTo(count);
      assertThat(Arrays.copyOfRange(into, 1, count + 1)).as(what).containsExactly(sequence);

      multimodalBlocks += Math.min(count, r.mm.length);
      eagleBlocks += r.format == KvQueryHashFormat.DYNAMO_EAGLE_V1 ? count : 0;
      largeWindowBlocks += r.blockSize >= 512 ? count : 0;
    }
    assertThat(expected.remaining()).isZero();
    assertThat(multimodalBlocks).as("multimodal blocks covered").isGreaterThan(1_000);
    assertThat(eagleBlocks).as("EAGLE blocks covered").isGreaterThan(10_000);
    assertThat(largeWindowBlocks).as("blocks of windows >= 2 KiB covered").isGreaterThan(50);
  }

  private static MultimodalBlockHashes multimodal(String[][] identifiers) throws HashingInputException {
    long[][] perBlock = new long[identifiers.length][];
    for (int b = 0; b < identifiers.length; b++) {
      perBlock[b] = new long[identifiers[b].length];
      for (int k = 0; k < identifiers[b].length; k++) {
        perBlock[b][k] = MmHash.fromIdentifier(identifiers[b][k]);
      }
    }
    return MultimodalBlockHashes.of(perBlock);
  }

  private static Request request(SplittableRandom random, int i) {
    KvQueryHashFormat format =
        random.nextBoolean() ? KvQueryHashFormat.DYNAMO_STANDARD_V1 : KvQueryHashFormat.DYNAMO_EAGLE_V1;
    int blockSize;
    int maxTokens = 300;
    int roll = random.nextInt(100);
    if (roll < 3 && format == KvQueryHashFormat.DYNAMO_STANDARD_V1) {
      blockSize = 0;
    } else if (roll < 6) {
      blockSize = 200 + random.nextInt(1000);
    } else if (roll < 12) {
      // Production-sized windows (bs 512 = 2 KiB, EAGLE 2 KiB + 4): XXH3's multi-block stream path.
      blockSize = 256 << random.nextInt(3);
      maxTokens = 3 * blockSize + 1;
    } else {
      blockSize = 1 + random.nextInt(24);
    }
    int[] tokens = new int[random.nextInt(maxTokens + 1)];
    for (int t = 0; t < tokens.length; t++) {
      tokens[t] = random.nextBoolean() ? random.nextInt(200_000) : random.nextInt();
    }
    String lora = (i & 1) == 0 ? "" : text(random);
    String namespace = (i & 2) == 0 ? "" : text(random);
    String[][] mm = new String[i % 3 == 0 ? random.nextInt(12) : 0][];
    for (int b = 0; b < mm.length; b++) {
      mm[b] = new String[random.nextInt(5)];
      for (int k = 0; k < mm[b].length; k++) {
        mm[b][k] = identifier(random);
      }
    }
    return new Request(format, blockSize, lora, namespace, tokens, mm);
  }

  private static String identifier(SplittableRandom random) {
    switch (random.nextInt(5)) {
      case 0:
        return hex(random, 64, false);
      case 1:
        return hex(random, 64, true);
      case 2:
        return hex(random, random.nextBoolean() ? 63 : 65, false);
      case 3:
        return hex(random, 63, false) + "g";
      default:
        String t = text(random);
        return t.isEmpty() ? "x" : t;
    }
  }

  private static String hex(SplittableRandom random, int length, boolean mixedCase) {
    String digits = mixedCase ? "0123456789abcdefABCDEF" : "0123456789abcdef";
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(digits.charAt(random.nextInt(digits.length())));
    }
    return sb.toString();
  }

  /** Random text with ASCII, Latin, CJK and supplementary code points (no lone surrogates). */
  private static String text(SplittableRandom random) {
    int[] alphabet = {'a', 'z', '-', '/', '0', 0xE9, 0x4E2D, 0x1F600, 0x10FFFF};
    StringBuilder sb = new StringBuilder();
    int len = random.nextInt(40);
    for (int i = 0; i < len; i++) {
      sb.appendCodePoint(random.nextInt(4) == 0 ? alphabet[random.nextInt(alphabet.length)] : 'a' + random.nextInt(26));
    }
    return sb.toString();
  }

  private static String describe(Request r) {
    return r.format + " bs=" + r.blockSize + " lora='" + r.lora + "' ns='" + r.namespace + "' n=" + r.tokens.length
        + " mmBlocks=" + r.mm.length;
  }

  private static void write(Path file, List<Request> requests) throws IOException {
    try (OutputStream os = Files.newOutputStream(file);
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(os, 1 << 16))) {
      out.writeInt(Integer.reverseBytes(requests.size()));
      for (Request r : requests) {
        out.writeByte(r.format.wireValue());
        out.writeInt(Integer.reverseBytes(r.blockSize));
        writeText(out, r.lora);
        writeText(out, r.namespace);
        out.writeInt(Integer.reverseBytes(r.tokens.length));
        for (int t : r.tokens) {
          out.writeInt(Integer.reverseBytes(t));
        }
        out.writeInt(Integer.reverseBytes(r.mm.length));
        for (String[] block : r.mm) {
          out.writeInt(Integer.reverseBytes(block.length));
          for (String id : block) {
            writeText(out, id);
          }
        }
      }
    }
  }

  private static void writeText(DataOutputStream out, String s) throws IOException {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(Integer.reverseBytes(utf8.length));
    out.write(utf8);
  }
}
