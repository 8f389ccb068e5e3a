package dev.kvrelay.ckf.producer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CkfSizing;

/**
 * Immutable and thread-safe validated configuration of one pool producer: CKF format, relocation
 * budget, publication cadence and the expected number of unique blocks its ownership map is presized
 * for (0: not presized).
 */
public final class CkfProducerConfig {
  /** Default {@code publish_every_n_events} of a bare CKF config (the Relay sets 16). */
  public static final int DEFAULT_PUBLISH_EVERY_N_EVENTS = 1;

  private final CkfFormat format;
  private final int maxKicks;
  private final int publishEveryNEvents;
  private final long expectedUniqueBlocks;

  private CkfProducerConfig(CkfFormat format, int maxKicks, int publishEveryNEvents, long expectedUniqueBlocks) {
    this.format = format;
    this.maxKicks = maxKicks;
    this.publishEveryNEvents = publishEveryNEvents;
    this.expectedUniqueBlocks = expectedUniqueBlocks;
  }

  /** The largest {@code expectedUniqueBlocks}: what a 90 %-loaded map of the largest capacity holds. */
  public static final long MAX_EXPECTED_UNIQUE_BLOCKS = HashMix.maxFill(HashMix.MAX_CAPACITY);

  /**
   * Defaults for {@code expectedBlocks} unique blocks: default seed, {@code B} from {@link CkfSizing},
   * {@code max_kicks = 500}, {@code publish_every_n_events = 1}, ownership map presized for
   * {@code expectedBlocks} unique blocks.
   *
   * @throws CkfConfigException for zero, overflowing or CBI1-oversized capacities
   */
  public static CkfProducerConfig forExpectedBlocks(long expectedBlocks) throws CkfConfigException {
    return of(CkfFormat.withDefaultSeed(CkfSizing.publishableBucketCount(expectedBlocks)),
        CkfSizing.DEFAULT_MAX_KICKS, DEFAULT_PUBLISH_EVERY_N_EVENTS).withExpectedUniqueBlocks(expectedBlocks);
  }

  /**
   * An explicit configuration.
   *
   * @throws CkfConfigException {@code INVALID_MAX_KICKS} outside {@code 1..=4096},
   *     {@code INVALID_PUBLISH_EVERY_N_EVENTS} below 1
   */
  public static CkfProducerConfig of(CkfFormat format, int maxKicks, int publishEveryNEvents)
      throws CkfConfigException {
    CkfSizing.validateMaxKicks(maxKicks);
    if (publishEveryNEvents < 1) {
      throw new CkfConfigException(CkfConfigException.Reason.INVALID_PUBLISH_EVERY_N_EVENTS,
          "publish_every_n_events must be at least 1, got " + publishEveryNEvents);
    }
    return new CkfProducerConfig(format, maxKicks, publishEveryNEvents, 0);
  }

  /** This configuration with another publication threshold. */
  public CkfProducerConfig withPublishEveryNEvents(int n) throws CkfConfigException {
    return of(format, maxKicks, n).withExpectedUniqueBlocks(expectedUniqueBlocks);
  }

  /**
   * This configuration with the ownership map presized for {@code blocks} unique blocks (0: not
   * presized), so that it reaches that many without growing.
   *
   * @throws CkfConfigException {@code CAPACITY_OVERFLOW} outside {@code 0..=MAX_EXPECTED_UNIQUE_BLOCKS}
   */
  public CkfProducerConfig withExpectedUniqueBlocks(long blocks) throws CkfConfigException {
    if (blocks < 0 || blocks > MAX_EXPECTED_UNIQUE_BLOCKS) {
      throw new CkfConfigException(CkfConfigException.Reason.CAPACITY_OVERFLOW,
          "expected unique blocks must be in 0.." + MAX_EXPECTED_UNIQUE_BLOCKS + ", got " + blocks);
    }
    return new CkfProducerConfig(format, maxKicks, publishEveryNEvents, blocks);
  }

  public CkfFormat format() {
    return format;
  }

  public int maxKicks() {
    return maxKicks;
  }

  public int publishEveryNEvents() {
    return publishEveryNEvents;
  }

  /** Unique blocks the ownership map is presized for; 0 if not presized. */
  public long expectedUniqueBlocks() {
    return expectedUniqueBlocks;
  }

  @Override
  public String toString() {
    return "CkfProducerConfig[" + format + ", maxKicks=" + maxKicks + ", publishEveryNEvents="
        + publishEveryNEvents + ", expectedUniqueBlocks=" + expectedUniqueBlocks + "]";
  }
}
