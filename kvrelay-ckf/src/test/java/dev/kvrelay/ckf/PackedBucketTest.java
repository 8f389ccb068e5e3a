package dev.kvrelay.ckf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** vectors.md §1.2 (bucket word packing) and SWAR searches against a plain slot loop. */
class PackedBucketTest {

  @Test
  void computedVectorLittleEndianBytesToWordAndSlots() {
    byte[] bytes = {0x34, 0x12, 0x00, 0x00, (byte) 0xcd, (byte) 0xab, 0x01, 0x00};
    long word = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    assertThat(word).isEqualTo(0x0001ABCD00001234L);
    assertThat(new int[] {
        PackedBucket.slot(word, 0), PackedBucket.slot(word, 1), PackedBucket.slot(word, 2), PackedBucket.slot(word, 3)})
        .containsExactly(0x1234, 0, 0xABCD, 1);
    assertThat(PackedBucket.of(0x1234, 0, 0xABCD, 1)).isEqualTo(0x0001ABCD00001234L);
    assertThat(PackedBucket.occupancy(word)).isEqualTo(3);
    assertThat(PackedBucket.firstEmpty(word)).isEqualTo(1);
  }

  @Test
  void upstreamVectorFullBucketSearchesAndClearingSlotOne() {
    long word = PackedBucket.of(1, 0x1234, 0x8000, 0xFFFF);
    assertThat(PackedBucket.firstEmpty(word)).isEqualTo(PackedBucket.NONE);
    assertThat(PackedBucket.firstIndexOf(word, 1)).isZero();
    assertThat(PackedBucket.firstIndexOf(word, 0x8000)).isEqualTo(2);
    assertThat(PackedBucket.contains(word, 0xFFFF)).isTrue();
    assertThat(PackedBucket.contains(word, 0x7FFF)).isFalse();
    assertThat(PackedBucket.isFull(word)).isTrue();
    long cleared = PackedBucket.withSlot(word, 1, 0);
    assertThat(PackedBucket.firstEmpty(cleared)).isEqualTo(1);
    assertThat(cleared).isEqualTo(0xFFFF_8000_0000_0001L);
  }

  @Test
  void emptyBucketIsZeroAndEverySlotEmpty() {
    assertThat(PackedBucket.EMPTY).isZero();
    assertThat(PackedBucket.firstEmpty(0)).isZero();
    assertThat(PackedBucket.occupancy(0)).isZero();
    for (int fp = 1; fp <= 0xFFFF; fp++) {
      assertThat(PackedBucket.contains(0, fp)).isFalse();
    }
  }

  @Test
  void swarSearchesAgreeWithPlainLoopOnWordsWithRepeatedAndBorderLanes() {
    // Lanes drawn from a small alphabet so that duplicates, zeros and 0x8000/0xFFFF borders are common.
    int[] alphabet = {0, 1, 2, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x1234};
    qt().withExamples(20_000)
        .forAll(integers().between(0, 4095), integers().between(0, alphabet.length - 1), longs().all())
        .checkAssert((lanes, probeIndex, randomWord) -> {
          long word = PackedBucket.of(alphabet[lanes & 7], alphabet[(lanes >>> 3) & 7],
              alphabet[(lanes >>> 6) & 7], alphabet[(lanes >>> 9) & 7]);
          assertAgreesWithLoop(word, alphabet[probeIndex]);
          assertAgreesWithLoop(randomWord, (int) (randomWord >>> 16) & 0xFFFF);
          assertAgreesWithLoop(randomWord, alphabet[probeIndex]);
        });
  }

  private static void assertAgreesWithLoop(long word, int fp) {
    int[] slots = new int[4];
    for (int s = 0; s < 4; s++) {
      slots[s] = (int) ((word >>> (16 * s)) & 0xFFFF);
      assertThat(PackedBucket.slot(word, s)).isEqualTo(slots[s]);
    }
    int first = -1;
    int firstEmpty = -1;
    int occupied = 0;
    for (int s = 3; s >= 0; s--) {
      if (slots[s] == fp) {
        first = s;
      }
      if (slots[s] == 0) {
        firstEmpty = s;
      } else {
        occupied++;
      }
    }
    assertThat(PackedBucket.firstIndexOf(word, fp)).as("first(%x) in %x", fp, word).isEqualTo(first);
    assertThat(PackedBucket.firstEmpty(word)).isEqualTo(firstEmpty);
    assertThat(PackedBucket.occupancy(word)).isEqualTo(occupied);
    if (fp != 0) {
      assertThat(PackedBucket.contains(word, fp)).as("contains(%x) in %x", fp, word).isEqualTo(first >= 0);
    }
    for (int s = 0; s < 4; s++) {
      long rewritten = PackedBucket.withSlot(word, s, fp);
      for (int t = 0; t < 4; t++) {
        assertThat(PackedBucket.slot(rewritten, t)).isEqualTo(t == s ? fp : slots[t]);
      }
    }
  }
}
