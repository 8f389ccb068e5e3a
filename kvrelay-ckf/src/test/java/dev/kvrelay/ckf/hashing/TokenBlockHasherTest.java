package dev.kvrelay.ckf.hashing;

import static dev.kvrelay.api.KvQueryHashFormat.DYNAMO_EAGLE_V1;
import static dev.kvrelay.api.KvQueryHashFormat.DYNAMO_STANDARD_V1;
import static dev.kvrelay.ckf.hashing.SequenceHashTest.assertReason;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** vectors.md §3 (runtime-inputs.md §7.4): block and sequence hashes, plus validation. */
class TokenBlockHasherTest {

  private static long[] u(String... unsignedDecimals) {
    return Arrays.stream(unsignedDecimals).mapToLong(Long::parseUnsignedLong).toArray();
  }

  /** Inclusive range {@code from..to}, as the spec's "C" rows write it. */
  private static int[] inclusive(int from, int to) {
    int[] t = new int[to - from + 1];
    for (int i = 0; i < t.length; i++) {
      t[i] = from + i;
    }
    return t;
  }

  /** End-exclusive range {@code 0..end}, as the upstream tests write it. */
  private static int[] exclusive(int end) {
    return inclusive(0, end - 1);
  }

  private static TokenBlockHasher hasher(KvQueryHashFormat f, int bs, String lora, String ns)
      throws HashingInputException {
    return TokenBlockHasher.create(f, bs, BlockHashSalt.of(lora, ns));
  }

  private static void assertCase(
      TokenBlockHasher h, int[] tokens, long[] expectedBlocks, long[] expectedSequence)
      throws HashingInputException {
    assertThat(h.blockHashes(tokens)).containsExactly(expectedBlocks);
    assertThat(h.sequenceHashes(tokens)).containsExactly(expectedSequence);
    assertThat(h.blockCount(tokens.length)).isEqualTo(expectedBlocks.length);
    // The allocation-free variants agree.
    long[] out = new long[expectedBlocks.length + 2];
    Arrays.fill(out, 42);
    assertThat(h.sequenceHashes(tokens, 0, tokens.length, MultimodalBlockHashes.NONE, out, 1))
        .isEqualTo(expectedSequence.length);
    assertThat(out[0]).isEqualTo(42);
    assertThat(Arrays.copyOfRange(out, 1, 1 + expectedSequence.length)).containsExactly(expectedSequence);
    assertThat(out[out.length - 1]).isEqualTo(42);
    long[] exact = new long[expectedBlocks.length];
    assertThat(h.blockHashes(tokens, exact)).isEqualTo(expectedBlocks.length);
    assertThat(exact).containsExactly(expectedBlocks);
  }

  // ---- U: upstream behaviours ----

  @ParameterizedTest(name = "upstream test_compute_block_hash_for_seq bs={0}")
  @ValueSource(ints = {11, 32, 64})
  void upstreamComputeBlockHashForSeqCounts(int bs) throws HashingInputException {
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_STANDARD_V1, bs);
    assertThat(h.blockHashes(exclusive(bs))).hasSize(1);
    assertThat(h.blockHashes(exclusive(bs + 1))).hasSize(1);
    assertThat(h.blockHashes(exclusive(2 * bs + 1))).hasSize(2);
    // The tail token does not change the full block's hash.
    assertThat(h.blockHashes(exclusive(bs + 1))).containsExactly(h.blockHashes(exclusive(bs)));
  }

  @Test
  void upstreamEagleWindows() throws HashingInputException {
    int[] tokens = {0, 1, 2, 3, 4, 5};
    assertThat(TokenBlockHasher.create(DYNAMO_STANDARD_V1, 2).blockHashes(tokens)).hasSize(3);
    long[] eagle = TokenBlockHasher.create(DYNAMO_EAGLE_V1, 2).blockHashes(tokens);
    // hash([0,1,2]) and hash([2,3,4]): the plain hash of each 3-token window.
    TokenBlockHasher plain3 = TokenBlockHasher.create(DYNAMO_STANDARD_V1, 3);
    assertThat(eagle)
        .containsExactly(
            plain3.blockHashes(new int[] {0, 1, 2})[0], plain3.blockHashes(new int[] {2, 3, 4})[0]);
  }

  @Test
  void upstreamRequestHashing35TokensBs16TwoBlocks() throws HashingInputException {
    assertThat(TokenBlockHasher.create(DYNAMO_STANDARD_V1, 16).blockHashes(exclusive(35))).hasSize(2);
  }

  // ---- C: computed vectors ----

  @Test
  void computed_1_2_3_4_bs4() throws HashingInputException {
    long[] expected = u("14643705804678351452");
    assertCase(hasher(DYNAMO_STANDARD_V1, 4, "", ""), new int[] {1, 2, 3, 4}, expected, expected);
  }

  @Test
  void computed_0to7_bs4() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_STANDARD_V1, 4, "", ""),
        inclusive(0, 7),
        u("9143094415614847814", "12124091508212882195"),
        u("9143094415614847814", "9510318385840434533"));
  }

  @Test
  void computed_0to8_bs4_tailDropped() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_STANDARD_V1, 4, "", ""),
        inclusive(0, 8),
        u("9143094415614847814", "12124091508212882195"),
        u("9143094415614847814", "9510318385840434533"));
  }

  @Test
  void computed_0to7_bs4_loraAdapterA() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_STANDARD_V1, 4, "adapter-a", ""),
        inclusive(0, 7),
        u("6665157333201000639", "11721812545976571723"),
        u("6665157333201000639", "13351519314849170528"));
  }

  @Test
  void computed_0to7_bs4_namespaceTenantA() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_STANDARD_V1, 4, "", "tenant-a"),
        inclusive(0, 7),
        u("17009624042690211646", "10000672136415158886"),
        u("17009624042690211646", "18279821067719767880"));
  }

  @Test
  void computed_0to7_bs4_namespaceAndLora() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_STANDARD_V1, 4, "adapter-a", "tenant-a"),
        inclusive(0, 7),
        u("8269515957840517240", "11937877779520612889"),
        u("8269515957840517240", "16913744751721653295"));
  }

  @Test
  void computed_0to5_bs2_standard() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_STANDARD_V1, 2, "", ""),
        inclusive(0, 5),
        u("10918435022357402928", "10731123482949079648", "12189426826560619506"),
        u("10918435022357402928", "7454852371412049951", "6095362907158782976"));
  }

  @Test
  void computed_0to5_bs2_eagle() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_EAGLE_V1, 2, "", ""),
        inclusive(0, 5),
        u("11646242937812223497", "9948816348502404300"),
        u("11646242937812223497", "16579128339329071142"));
  }

  @Test
  void computed_1to32_bs16() throws HashingInputException {
    assertCase(
        hasher(DYNAMO_STANDARD_V1, 16, "", ""),
        inclusive(1, 32),
        u("16863443419780771464", "2287610619914608821"),
        u("16863443419780771464", "12466389667045779788"));
  }

  // ---- windows, counts and validation ----

  @Test
  void standardBlockSizeZeroYieldsNoHashes() throws HashingInputException {
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_STANDARD_V1, 0);
    assertThat(h.blockHashes(inclusive(0, 100))).isEmpty();
    assertThat(h.sequenceHashes(inclusive(0, 100))).isEmpty();
    assertThat(h.blockCount(101)).isZero();
  }

  @Test
  void eagleCounts() throws HashingInputException {
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_EAGLE_V1, 4);
    assertThat(h.blockHashes(new int[0])).isEmpty();
    assertThat(h.blockHashes(new int[4])).isEmpty(); // (4-1)/4 = 0: the 5th token is missing
    assertThat(h.blockHashes(new int[5])).hasSize(1);
    assertThat(h.blockHashes(new int[8])).hasSize(1);
    assertThat(h.blockHashes(new int[9])).hasSize(2);
    assertThat(h.blockCount(-3)).isZero();
  }

  @Test
  void hugeBlockSizesYieldNoHashesWithoutOverflow() throws HashingInputException {
    for (KvQueryHashFormat f : KvQueryHashFormat.values()) {
      TokenBlockHasher h = TokenBlockHasher.create(f, Integer.MAX_VALUE);
      assertThat(h.blockHashes(new int[1000])).isEmpty();
      assertThat(h.blockCount(Integer.MAX_VALUE)).isEqualTo(f == DYNAMO_EAGLE_V1 ? 0 : 1);
    }
  }

  @Test
  void rejectsEagleBlockSizeZero() {
    assertReason(
        () -> TokenBlockHasher.create(DYNAMO_EAGLE_V1, 0), HashingInputException.Reason.BLOCK_SIZE_INVALID);
  }

  /**
   * {@code kv_block_size} is a u32 held in an {@code int} ({@link KvQuerySemantics}, wan-grpc.md §1.5 and
   * §1.8: any non-zero value is valid). Values from 2^31 up arrive as negative ints; they exceed every Java
   * token count, so both formats yield no blocks (runtime-inputs.md §7.1 count = n / bs, §7.3 (n − 1) / bs).
   */
  @ParameterizedTest(name = "kv_block_size u32 bits {0}")
  @ValueSource(ints = {-1, Integer.MIN_VALUE, 0x8000_0001})
  void blockSizeIsAnUnsignedU32(int u32Bits) throws Exception {
    for (KvQueryHashFormat f : KvQueryHashFormat.values()) {
      KvQuerySemantics semantics = KvQuerySemantics.fromWire(u32Bits, f.wireValue());
      TokenBlockHasher h = TokenBlockHasher.create(semantics.hashFormat(), semantics.kvBlockSize());
      assertThat(h.blockSize()).isEqualTo(u32Bits);
      assertThat(h.blockCount(Integer.MAX_VALUE)).isZero();
      assertThat(h.blockHashes(inclusive(0, 999))).isEmpty();
      assertThat(h.sequenceHashes(inclusive(0, 999))).isEmpty();
      long[] out = {5};
      assertThat(h.sequenceHashes(inclusive(0, 999), 0, 1000, MultimodalBlockHashes.NONE, out, 0)).isZero();
      assertThat(out).containsExactly(5);
    }
  }

  @Test
  void rejectsBadRangesAndShortOutputWritingNothing() throws HashingInputException {
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_STANDARD_V1, 4);
    int[] tokens = inclusive(0, 11);
    long[] out = {5, 5};
    MultimodalBlockHashes none = MultimodalBlockHashes.NONE;
    assertReason(() -> h.blockHashes(tokens, out), HashingInputException.Reason.OUTPUT_TOO_SMALL);
    assertReason(() -> h.sequenceHashes(tokens, 0, 12, none, out, 0), HashingInputException.Reason.OUTPUT_TOO_SMALL);
    assertReason(() -> h.blockHashes(tokens, 0, 8, none, out, 1), HashingInputException.Reason.OUTPUT_TOO_SMALL);
    assertReason(() -> h.blockHashes(tokens, 0, 8, none, out, -1), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> h.blockHashes(tokens, 0, 8, none, out, 3), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> h.blockHashes(tokens, 10, 4, none, out, 0), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> h.blockHashes(tokens, -1, 4, none, out, 0), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> h.blockHashes(tokens, 0, -4, none, out, 0), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(
        () -> h.sequenceHashes(tokens, Integer.MAX_VALUE, 1, none, out, 0),
        HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertThat(out).containsExactly(5, 5);
    // Zero blocks fit anywhere, including at the end of the output.
    assertThat(h.blockHashes(tokens, 0, 3, none, out, 2)).isZero();
    assertThat(out).containsExactly(5, 5);
  }

  @Test
  void subRangeHashesLikeACopy() throws HashingInputException {
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_EAGLE_V1, 3, BlockHashSalt.of("adapter-a", ""));
    int[] tokens = {-1, -7, 9, 0x7FFF_FFFF, 0x8000_0000, 4, 5, 6, 7, 8, 9, 10};
    long[] out = new long[3];
    assertThat(h.sequenceHashes(tokens, 2, 9, MultimodalBlockHashes.NONE, out, 0)).isEqualTo(2);
    assertThat(Arrays.copyOf(out, 2)).containsExactly(h.sequenceHashes(Arrays.copyOfRange(tokens, 2, 11)));
  }

  @Test
  void tokensAreUnsigned32BitLittleEndian() throws HashingInputException {
    // Independent model: the spec's byte layout fed to XXH3 (itself cross-checked against libxxhash).
    int[] tokens = {0xFFFF_FFFF, 0x8000_0000, 0x0102_0304, 0};
    ByteBuffer bytes = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    for (int t : tokens) {
      bytes.putInt(t);
    }
    assertThat(bytes.array())
        .startsWith((byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0, 0, 0, (byte) 0x80, 4, 3, 2, 1);
    assertThat(TokenBlockHasher.create(DYNAMO_STANDARD_V1, 4).blockHashes(tokens))
        .containsExactly(Xxh3.withSeed(1337).hash(bytes.array()));
  }

  @Test
  void accessorsReportConfiguration() throws HashingInputException {
    BlockHashSalt salt = BlockHashSalt.of("adapter-a", "tenant-a");
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_EAGLE_V1, 7, salt);
    assertThat(h.format()).isEqualTo(DYNAMO_EAGLE_V1);
    assertThat(h.blockSize()).isEqualTo(7);
    assertThat(h.salt()).isEqualTo(salt);
    assertThat(TokenBlockHasher.create(DYNAMO_STANDARD_V1, 7).salt()).isEqualTo(BlockHashSalt.NONE);
  }
}
