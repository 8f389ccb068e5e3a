package dev.kvrelay.ckf.producer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CkfSizing;

/**
 * Immutable and thread-safe validated configuration of one pool producer: CKF format, relocation
 * budget and publication cadence.
 */
public final class CkfProducerConfig {
  /** Default {@code publish_every_n_events} of a bare CKF config (the Relay sets 16). */
  public static final int DEFAULT_PUBLISH_EVERY_N_EVENTS = 1;

  private final CkfFormat format;
  private final int maxKicks;
  private final int publishEveryNEvents;

  private CkfProducerConfig(CkfFormat format, int maxKicks, int publishEveryNEvents) {
    this.format = format;
    this.maxKicks = maxKicks;
    this.publishEveryNEvents = publishEveryNEvents;
  }

  /**
   * Defaults for {@code expectedBlocks} unique blocks: default seed, {@code B} from {@link CkfSizing},
   * {@code max_kicks = 500}, {@code publish_every_n_events = 1}.
   *
   * @throws CkfConfigException for zero, overflowing or CBI1-oversized capacities
   */
  public static CkfProducerConfig forExpectedBlocks(long expectedBlocks) throws CkfConfigException {
    return of(CkfFormat.withDefaultSeed(CkfSizing.publishableBucketCount(expectedBlocks)),
        CkfSizing.DEFAULT_MAX_KICKS, DEFAULT_PUBLISH_EVERY_N_EVENTS);
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
    return new CkfProducerConfig(format, maxKicks, publishEveryNEvents);
  }

  /** This configuration with another publication threshold. */
  public CkfProducerConfig withPublishEveryNEvents(int n) throws CkfConfigException {
    return of(format, maxKicks, n);
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

  @Override
  public String toString() {
    return "CkfProducerConfig[" + format + ", maxKicks=" + maxKicks + ", publishEveryNEvents="
        + publishEveryNEvents + "]";
  }
}
