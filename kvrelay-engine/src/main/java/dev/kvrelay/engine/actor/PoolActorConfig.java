package dev.kvrelay.engine.actor;

/**
 * Immutable and thread-safe: the pool actor's bounds (producer.md §3.1). The publication threshold
 * ({@code publish_every_n_events}, 16 in the Relay) lives in the producer's own config.
 *
 * @param mailboxCapacity bounded mailbox size in commands (256)
 * @param pendingBlockPermits block permits of queued events (65 536)
 * @param publicationDelayNanos the one-shot publication timer (1 ms)
 */
public record PoolActorConfig(int mailboxCapacity, long pendingBlockPermits, long publicationDelayNanos) {
  /** Mailbox capacity, commands. */
  public static final int DEFAULT_MAILBOX_CAPACITY = 256;
  /** Pending block permits. */
  public static final long DEFAULT_PENDING_BLOCK_PERMITS = 65_536;
  /** Publication delay: 1 ms. */
  public static final long DEFAULT_PUBLICATION_DELAY_NANOS = 1_000_000L;
  /** Publication broadcast capacity (deltas), for the hub that implements {@link PublicationListener}. */
  public static final int BROADCAST_CAPACITY = 64;
  /** The Relay's publication threshold (events), set in the producer config. */
  public static final int DEFAULT_PUBLICATION_THRESHOLD = 16;

  /** The defaults of producer.md §3.1. */
  public static final PoolActorConfig DEFAULTS = new PoolActorConfig(
      DEFAULT_MAILBOX_CAPACITY, DEFAULT_PENDING_BLOCK_PERMITS, DEFAULT_PUBLICATION_DELAY_NANOS);

  /**
   * Validates the bounds.
   *
   * @throws IllegalArgumentException if any bound is not positive (a configuration bug)
   */
  public PoolActorConfig {
    if (mailboxCapacity < 1 || pendingBlockPermits < 1 || publicationDelayNanos < 1) {
      throw new IllegalArgumentException("pool actor bounds must be positive: " + mailboxCapacity + ", "
          + pendingBlockPermits + ", " + publicationDelayNanos);
    }
  }
}
