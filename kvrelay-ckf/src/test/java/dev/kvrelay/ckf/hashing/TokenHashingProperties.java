package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.KvQueryHashFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** Property tests of the chain and the token windows against simple exact models. */
class TokenHashingProperties {

  private static final Gen<List<Integer>> TOKENS = lists().of(integers().all()).ofSizeBetween(0, 400);
  /** Mostly block sizes that give blocks, a quarter anywhere up to {@code Integer.MAX_VALUE}. */
  private static final Gen<Integer> BLOCK_SIZES =
      integers().between(1, 64).mix(integers().between(1, Integer.MAX_VALUE), 25);

  private static int[] ints(List<Integer> list) {
    return list.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Exact model of one window: XXH3 over the window's tokens as u32 LE, with the salt seed. */
  private static long windowModel(int[] tokens, int from, int count, long seed) {
    ByteBuffer b = ByteBuffer.allocate(4 * count).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = from; i < from + count; i++) {
      b.putInt(tokens[i]);
    }
    return Xxh3.withSeed(seed).hash(b.array());
  }

  @Test
  void chainOfAPrefixIsAPrefixOfTheChainOfTheWhole() {
    qt().withExamples(2_000)
        .forAll(lists().of(longs().all()).ofSizeBetween(0, 64), integers().between(0, 64))
        .checkAssert(
            (list, cut) -> {
              long[] whole = list.stream().mapToLong(Long::longValue).toArray();
              int k = Math.min(cut, whole.length);
              long[] prefixChain = SequenceHash.chain(Arrays.copyOf(whole, k));
              assertThat(prefixChain).containsExactly(Arrays.copyOf(SequenceHash.chain(whole), k));
            });
  }

  @Test
  void chainStepIsChildOfPrevious() {
    qt().withExamples(1_000)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 32))
        .checkAssert(
            list -> {
              long[] blocks = list.stream().mapToLong(Long::longValue).toArray();
              long[] chain = SequenceHash.chain(blocks);
              assertThat(chain[0]).isEqualTo(blocks[0]);
              for (int i = 1; i < blocks.length; i++) {
                assertThat(chain[i]).isEqualTo(Xxh3.withSeed(1337).hashLongLong(chain[i - 1], blocks[i]));
              }
            });
  }

  @Test
  void eagleWindowICoversTokensIbsThroughIbsPlusBs() {
    qt().withExamples(1_000)
        .forAll(TOKENS, integers().between(1, 40), longs().all())
        .checkAssert(
            (list, bs, seed) -> {
              int[] tokens = ints(list);
              TokenBlockHasher h = create(KvQueryHashFormat.DYNAMO_EAGLE_V1, bs, new BlockHashSalt(seed));
              long[] blocks = h.blockHashes(tokens);
              assertThat(blocks).hasSize(tokens.length == 0 ? 0 : (tokens.length - 1) / bs);
              for (int i = 0; i < blocks.length; i++) {
                assertThat(blocks[i]).isEqualTo(windowModel(tokens, i * bs, bs + 1, seed));
              }
            });
  }

  @Test
  void standardWindowICoversTokensIbsUpToIbsPlusBs() {
    qt().withExamples(1_000)
        .forAll(TOKENS, integers().between(1, 40), longs().all())
        .checkAssert(
            (list, bs, seed) -> {
              int[] tokens = ints(list);
              TokenBlockHasher h = create(KvQueryHashFormat.DYNAMO_STANDARD_V1, bs, new BlockHashSalt(seed));
              long[] blocks = h.blockHashes(tokens);
              assertThat(blocks).hasSize(tokens.length / bs);
              for (int i = 0; i < blocks.length; i++) {
                assertThat(blocks[i]).isEqualTo(windowModel(tokens, i * bs, bs, seed));
              }
            });
  }

  @Test
  void hashingNeverThrowsForAnyTokensAndBlockSizeAtLeastOne() {
    qt().withExamples(3_000)
        .forAll(TOKENS, BLOCK_SIZES, booleans().all(), longs().all())
        .checkAssert(
            (list, bs, eagle, seed) -> {
              int[] tokens = ints(list);
              KvQueryHashFormat f = eagle ? KvQueryHashFormat.DYNAMO_EAGLE_V1 : KvQueryHashFormat.DYNAMO_STANDARD_V1;
              TokenBlockHasher h = create(f, bs, new BlockHashSalt(seed));
              long n = tokens.length;
              long expectedCount = eagle ? (n == 0 ? 0 : (n - 1) / bs) : n / bs;
              long[] blocks = h.blockHashes(tokens);
              long[] sequence = h.sequenceHashes(tokens);
              assertThat((long) blocks.length).isEqualTo(expectedCount);
              assertThat(sequence).containsExactly(SequenceHash.chain(blocks));
              long[] out = new long[blocks.length];
              try {
                assertThat(h.blockHashes(tokens, out)).isEqualTo(blocks.length);
                assertThat(h.sequenceHashes(tokens, 0, tokens.length, MultimodalBlockHashes.NONE, out, 0))
                    .isEqualTo(blocks.length);
              } catch (HashingInputException e) {
                throw new AssertionError("exactly sized output rejected", e);
              }
              assertThat(out).containsExactly(sequence);
            });
  }

  private static TokenBlockHasher create(KvQueryHashFormat format, int bs, BlockHashSalt salt) {
    try {
      return TokenBlockHasher.create(format, bs, salt);
    } catch (HashingInputException e) {
      throw new AssertionError("block size " + bs + " rejected", e);
    }
  }
}
