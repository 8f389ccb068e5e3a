package dev.kvrelay.ckf.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The transposed table: layout, readiness bits and probe against a naive per-slot scan. */
class TransposedCkfTableTest {

  @Test
  void layoutIsBucketMajorLaneMinorAndStartsEmptyAndNotReady() {
    TransposedCkfTable table = TransposedCkfTable.of(CkfFormat.withDefaultSeed(8));
    assertThat(table.bucketCount()).isEqualTo(8);
    assertThat(table.readyLanes()).isZero();
    table.store(3, 5, 0x0001_ABCD_0000_1234L);
    assertThat(table.load(3, 5)).isEqualTo(0x0001_ABCD_0000_1234L);
    assertThat(table.load(3, 4)).isZero();
    assertThat(table.load(2, 5)).isZero();
  }

  @Test
  void probeFindsEverySlotOfBothBucketsInTheRightLane() {
    // Slots of the upstream protocol README example word [0x1234, 0, 0xABCD, 1].
    CkfFormat format = CkfFormat.withDefaultSeed(16);
    TransposedCkfTable table = TransposedCkfTable.of(format);
    table.store(2, 7, 0x0001_ABCD_0000_1234L);
    table.store(9, 0, 0xFFFF_0000_0000_0000L);
    for (int fp : new int[] {0x1234, 0xABCD, 1}) {
      assertThat(table.probe(packed(fp, 2, 5))).isEqualTo(1 << 7);
      assertThat(table.probe(packed(fp, 5, 2))).isEqualTo(1 << 7);
    }
    assertThat(table.probe(packed(0x1235, 2, 5))).isZero();
    assertThat(table.probe(packed(0xFFFF, 1, 9))).isEqualTo(1);
    assertThat(table.probe(packed(0xFFFF, 1, 9), 0xFFFE)).isZero();
  }

  @Test
  void readyBitsArePerLane() {
    TransposedCkfTable table = TransposedCkfTable.of(CkfFormat.withDefaultSeed(2));
    table.publishReady(3);
    table.publishReady(15);
    assertThat(table.readyLanes()).isEqualTo((1 << 3) | (1 << 15));
    table.retireReady(3);
    assertThat(table.readyLanes()).isEqualTo(1 << 15);
  }

  @Test
  void probeEqualsNaivePerSlotScan() {
    qt().withExamples(300)
        .forAll(integers().between(1, 10), longs().all())
        .checkAssert((log2Buckets, seed) -> {
          SplittableRandom random = new SplittableRandom(seed);
          CkfFormat format = CkfFormat.of(random.nextLong(), 1L << log2Buckets);
          CkfAddressing addressing = CkfAddressing.of(format);
          TransposedCkfTable table = TransposedCkfTable.of(format);
          int b = format.bucketCount();
          long[] keys = random.longs(24).toArray();
          int[] keyFps = new int[keys.length];
          for (int i = 0; i < keys.length; i++) {
            keyFps[i] = CkfAddressing.fingerprint(addressing.prepare(keys[i]));
          }
          long[][] words = new long[b][16];
          for (int bucket = 0; bucket < b; bucket++) {
            for (int lane = 0; lane < 16; lane++) {
              long word = 0;
              for (int slot = 0; slot < 4; slot++) {
                int fp = switch (random.nextInt(4)) {
                  case 0 -> 0;
                  case 1 -> random.nextInt(0x10000);
                  default -> keyFps[random.nextInt(keyFps.length)];
                };
                word |= (long) fp << (16 * slot);
              }
              words[bucket][lane] = word;
              table.store(bucket, lane, word);
            }
          }
          long[] queries = new long[keys.length + 24];
          System.arraycopy(keys, 0, queries, 0, keys.length);
          for (int i = keys.length; i < queries.length; i++) {
            queries[i] = random.nextLong();
          }
          for (long key : queries) {
            long packed = addressing.prepare(key);
            int expected = naiveProbe(words, packed);
            assertThat(table.probe(packed)).isEqualTo(expected);
            // Random masks (mostly the whole-bucket path) and masks of 1..5 lanes (the per-lane path).
            int lanes = random.nextInt(0x10000);
            assertThat(table.probe(packed, lanes)).isEqualTo(expected & lanes);
            int few = 0;
            for (int k = 1 + random.nextInt(5); k > 0; k--) {
              few |= 1 << random.nextInt(16);
            }
            assertThat(table.probe(packed, few)).isEqualTo(expected & few);
          }
        });
  }

  private static int naiveProbe(long[][] words, long packed) {
    int fp = CkfAddressing.fingerprint(packed);
    int a = CkfAddressing.bucketA(packed);
    int b = CkfAddressing.bucketB(packed);
    int mask = 0;
    for (int lane = 0; lane < 16; lane++) {
      for (int slot = 0; slot < 4; slot++) {
        if (((words[a][lane] >>> (16 * slot)) & 0xFFFF) == fp || ((words[b][lane] >>> (16 * slot)) & 0xFFFF) == fp) {
          mask |= 1 << lane;
        }
      }
    }
    return mask;
  }

  private static long packed(int fp, int a, int b) {
    return fp | ((long) a << 16) | ((long) b << 40);
  }
}
