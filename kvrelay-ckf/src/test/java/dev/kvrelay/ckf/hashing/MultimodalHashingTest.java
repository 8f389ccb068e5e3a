package dev.kvrelay.ckf.hashing;

import static dev.kvrelay.api.KvQueryHashFormat.DYNAMO_EAGLE_V1;
import static dev.kvrelay.api.KvQueryHashFormat.DYNAMO_STANDARD_V1;
import static dev.kvrelay.ckf.hashing.SequenceHashTest.assertReason;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** runtime-inputs.md §7.1: multimodal blocks, mm_hash from identifiers, SGLang pad value. */
class MultimodalHashingTest {

  private static final long HIGH = 0xFFFF_FFFF_FFFF_FFFFL;
  private static final long MID = 0x8000_0000_0000_0000L;

  /** Independent byte model of a multimodal block: tokens u32 LE then the given hashes u64 LE. */
  private static byte[] blockBytes(int[] tokens, int from, int count, long... sortedMm) {
    ByteBuffer b = ByteBuffer.allocate(4 * count + 8 * sortedMm.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = from; i < from + count; i++) {
      b.putInt(tokens[i]);
    }
    for (long mm : sortedMm) {
      b.putLong(mm);
    }
    return b.array();
  }

  @Test
  void multimodalBlockAppendsUnsignedSortedMmHashes() throws HashingInputException {
    BlockHashSalt salt = BlockHashSalt.of("adapter-a", "tenant-a");
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_STANDARD_V1, 4, salt);
    int[] tokens = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    MultimodalBlockHashes mm = MultimodalBlockHashes.of(new long[] {HIGH, 1, MID});
    Xxh3 model = Xxh3.withSeed(salt.seed());

    long[] blocks = h.blockHashes(tokens, mm);

    assertThat(blocks)
        .containsExactly(
            model.hash(blockBytes(tokens, 0, 4, 1, MID, HIGH)), model.hash(blockBytes(tokens, 4, 4)));
    long[] sequence = h.sequenceHashes(tokens, mm);
    assertThat(sequence).containsExactly(blocks[0], SequenceHash.child(blocks[0], blocks[1]));
  }

  @Test
  void eagleMultimodalAppendsAfterTheWiderWindow() throws HashingInputException {
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_EAGLE_V1, 2);
    int[] tokens = {10, 11, 12, 13, 14, 15};
    MultimodalBlockHashes mm = MultimodalBlockHashes.of(new long[0], new long[] {7, 3});
    Xxh3 model = Xxh3.withSeed(1337);
    assertThat(h.blockHashes(tokens, mm))
        .containsExactly(model.hash(blockBytes(tokens, 0, 3)), model.hash(blockBytes(tokens, 2, 3, 3, 7)));
  }

  @Test
  void inputOrderEmptyEntriesAndExtraEntriesDoNotMatter() throws HashingInputException {
    TokenBlockHasher h = TokenBlockHasher.create(DYNAMO_STANDARD_V1, 2);
    int[] tokens = {1, 2, 3, 4};
    long[] a = h.blockHashes(tokens, MultimodalBlockHashes.of(new long[] {MID, 5, HIGH}));
    long[] b = h.blockHashes(tokens, MultimodalBlockHashes.of(new long[] {HIGH, MID, 5}, new long[0], new long[] {9}));
    assertThat(a).containsExactly(b);
    assertThat(h.blockHashes(tokens, MultimodalBlockHashes.of(new long[0], new long[0])))
        .containsExactly(h.blockHashes(tokens));
    assertThat(a[0]).isNotEqualTo(h.blockHashes(tokens)[0]);
    assertThat(a[1]).isEqualTo(h.blockHashes(tokens)[1]);
  }

  @Test
  void multimodalValueCopiesAndSortsUnsigned() {
    long[] input = {HIGH, 0, MID, 1, MID};
    MultimodalBlockHashes mm = MultimodalBlockHashes.of(input);
    input[0] = 99;
    assertThat(mm.sortedHashes(0)).containsExactly(0, 1, MID, MID, HIGH);
    assertThat(mm.sortedHashes(1)).isEmpty();
    assertThat(mm.sortedHashes(-1)).isEmpty();
    assertThat(mm.blockCount()).isEqualTo(1);
    mm.sortedHashes(0)[0] = 77;
    assertThat(mm.sortedHashes(0)).startsWith(0);
    assertThat(mm.toString()).isEqualTo(
        "MultimodalBlockHashes[[0, 1, 9223372036854775808, 9223372036854775808, 18446744073709551615]]");
  }

  @Test
  void mmHashOfHexDigestIsItsFirst16HexDigits() throws HashingInputException {
    String digest = "0123456789abcdef" + "f".repeat(48);
    assertThat(MmHash.fromIdentifier(digest)).isEqualTo(0x0123456789ABCDEFL);
    assertThat(MmHash.fromIdentifier("FEDCBA9876543210" + "0".repeat(48))).isEqualTo(0xFEDCBA9876543210L);
    assertThat(MmHash.fromIdentifier("ffffffffffffffff" + "A".repeat(48))).isEqualTo(HIGH);
  }

  @Test
  void mmHashOfOtherIdentifiersIsXxh3Seed0OfUtf8() throws HashingInputException {
    // Expected values computed with Debian's libxxhash (python3-xxhash xxh3_64_intdigest(utf8, seed=0)).
    assertThat(MmHash.fromIdentifier("image-1")).isEqualTo(Long.parseUnsignedLong("9764656481613128169"));
    assertThat(MmHash.fromIdentifier("https://example.com/cat.png"))
        .isEqualTo(Long.parseUnsignedLong("3429473553062488878"));
    // 63 hex digits: not a digest.
    assertThat(MmHash.fromIdentifier("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"))
        .isEqualTo(Long.parseUnsignedLong("8919460197779909408"));
    assertThat(MmHash.fromIdentifier("\u00e9l\u00e8ve-\uD83D\uDE00"))
        .isEqualTo(Long.parseUnsignedLong("10022608532637729950"));
  }

  @Test
  void nonAsciiDigitsDoNotMakeAHexDigest() throws HashingInputException {
    // U+FF10 FULLWIDTH DIGIT ZERO is a Unicode digit but not an ASCII hex digit.
    String almost = "\uFF10" + "0".repeat(63);
    assertThat(MmHash.fromIdentifier(almost))
        .isEqualTo(Xxh3.withSeed(0).hash(almost.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThat(MmHash.fromIdentifier(almost)).isNotZero();
  }

  @Test
  void emptyIdentifierIsRejected() {
    assertReason(() -> MmHash.fromIdentifier(""), HashingInputException.Reason.MM_IDENTIFIER_EMPTY);
  }

  @Test
  void sglangPadValue() {
    assertThat(MmHash.sglangPadValue(0)).isEqualTo(1_000_000);
    assertThat(MmHash.sglangPadValue(12_345)).isEqualTo(1_012_345);
    assertThat(MmHash.sglangPadValue(1L << 30)).isEqualTo(1_000_000); // bit 30 is masked off
    assertThat(MmHash.sglangPadValue((1L << 30) - 1)).isEqualTo(1_074_741_823);
    assertThat(MmHash.sglangPadValue(HIGH)).isEqualTo(1_074_741_823);
  }
}
