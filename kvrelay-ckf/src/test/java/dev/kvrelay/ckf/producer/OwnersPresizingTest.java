package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.ckf.CkfConfigException;
import org.junit.jupiter.api.Test;

/** The owners map is created with a quarter's headroom over {@code expectedUniqueBlocks} and never grows below it. */
class OwnersPresizingTest {
  private static final int EXPECTED = 1 << 16;

  @Test
  void ownersMapHoldsTheExpectedUniqueBlocksWithoutGrowing() throws CkfConfigException {
    CkfProducerConfig config = CkfProducerConfig.forExpectedBlocks(EXPECTED).withPublishEveryNEvents(16);
    assertThat(config.expectedUniqueBlocks()).as("kept across withPublishEveryNEvents").isEqualTo(EXPECTED);
    CkfProducer p = CkfProducer.create(config);
    int initial = p.ownersMap().capacity();
    assertThat(HashMix.maxFill(initial)).isGreaterThanOrEqualTo(EXPECTED);
    StoredBatch batch = new StoredBatch(256);
    for (int start = 0; start < EXPECTED; start += 256) {
      batch.reset(7, 0);
      if (start > 0) {
        batch.parent(start - 1);
      }
      for (int i = start; i < start + 256; i++) {
        batch.addBlock(i, 0x9E37_79B9_7F4A_7C15L * (i + 1));
      }
      p.stored(batch);
      assertThat(p.ownersMap().capacity()).as("no growth while filling to E").isEqualTo(initial);
    }
    assertThat(p.stats().uniqueCanonicalHashes()).isEqualTo(EXPECTED);
    assertThat(p.ownersMap().capacity()).as("no growth up to E").isEqualTo(initial);
    assertThat((double) EXPECTED / initial).as("E blocks fill the presized map to at most 72 %").isLessThanOrEqualTo(0.72);
    assertThat(HashMix.maxFill(initial)).as("and it holds 1¼·E before it grows").isGreaterThanOrEqualTo(EXPECTED / 4 * 5);
  }

  @Test
  void unpresizedConfigStartsAtTheInitialCapacity() throws CkfConfigException {
    CkfProducerConfig config = CkfProducerConfig.of(CkfProducerConfig.forExpectedBlocks(EXPECTED).format(), 500, 1);
    assertThat(config.expectedUniqueBlocks()).isZero();
    assertThat(CkfProducer.create(config).ownersMap().capacity()).isEqualTo(1024);
  }

  @Test
  void outOfRangeExpectedUniqueBlocksIsATypedRejection() throws CkfConfigException {
    CkfProducerConfig config = CkfProducerConfig.forExpectedBlocks(EXPECTED);
    for (long bad : new long[] {-1, Long.MIN_VALUE, CkfProducerConfig.MAX_EXPECTED_UNIQUE_BLOCKS + 1}) {
      assertThatThrownBy(() -> config.withExpectedUniqueBlocks(bad))
          .isInstanceOfSatisfying(CkfConfigException.class,
              e -> assertThat(e.reason()).isEqualTo(CkfConfigException.Reason.CAPACITY_OVERFLOW));
    }
    assertThat(config.expectedUniqueBlocks()).isEqualTo(EXPECTED);
  }
}
