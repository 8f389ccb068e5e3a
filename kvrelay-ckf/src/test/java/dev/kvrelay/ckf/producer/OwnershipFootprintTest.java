package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.CkfConfigException;
import org.junit.jupiter.api.Test;

/**
 * Heap budget of the exact ownership layer: ≤ 40 bytes per tracked (member, external id) mapping at
 * 1 Mi mappings over 16 members. Measured from array lengths (deterministic), not from the GC. Every
 * mapping gets its own canonical hash, the worst case for the owners map.
 */
class OwnershipFootprintTest {
  private static final int MEMBERS = 16;
  private static final int MAPPINGS = 1 << 20;

  @Test
  void atMostFortyBytesPerMappingAtOneMebiMappingsOverSixteenMembers() throws CkfConfigException {
    CkfProducer p = CkfProducer.create(CkfProducerConfig.forExpectedBlocks(MAPPINGS));
    StoredBatch batch = new StoredBatch(1024);
    int perMember = MAPPINGS / MEMBERS;
    for (int m = 0; m < MEMBERS; m++) {
      long worker = 0x1000L + m / 4;
      int rank = m % 4;
      for (int start = 0; start < perMember; start += 1024) {
        batch.reset(worker, rank);
        if (start > 0) {
          batch.parent(((long) m << 32) | (start - 1));
        }
        for (int i = start; i < start + 1024; i++) {
          batch.addBlock(((long) m << 32) | i, (m * 0x9E3779B97F4A7C15L) ^ i);
        }
        assertThat(p.stored(batch)).isEqualTo(CkfOutcome.OK);
      }
    }
    assertThat(p.mappingCount()).isEqualTo(MAPPINGS);
    assertThat(p.stats().uniqueCanonicalHashes()).isEqualTo(MAPPINGS);
    assertThat(p.stats().members()).isEqualTo(MEMBERS);
    double bytesPerMapping = (double) p.ownershipFootprintBytes() / MAPPINGS;
    System.out.printf("ownership bytes per mapping at 1 Mi mappings / 16 members: %.2f%n", bytesPerMapping);
    assertThat(bytesPerMapping).isLessThanOrEqualTo(40.0);
    assertThat(p.capacityFailures()).as("E = 1 Mi sizing holds 1 Mi hashes").isZero();
  }
}
