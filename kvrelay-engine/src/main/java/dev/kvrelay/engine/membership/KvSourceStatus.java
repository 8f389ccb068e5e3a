package dev.kvrelay.engine.membership;

/**
 * Immutable and thread-safe: the status of one expected {@code (kv_state_endpoint, worker, dp_rank)} KV
 * source ({@code producer.md} §2.4 table).
 */
public sealed interface KvSourceStatus
    permits KvSourceStatus.Missing, KvSourceStatus.ActiveRecoverable, KvSourceStatus.ActiveLiveOnly,
        KvSourceStatus.Ambiguous {

  /** Immutable and thread-safe: no advertisement. */
  record Missing() implements KvSourceStatus {
    /** The one {@code Missing} status (records are equal by value; this saves the allocation). */
    public static final Missing INSTANCE = new Missing();
  }

  /**
   * Immutable and thread-safe: exactly one publisher, with a recovery target.
   *
   * @param publisherId the publisher id (u64)
   */
  record ActiveRecoverable(long publisherId) implements KvSourceStatus {}

  /**
   * Immutable and thread-safe: exactly one publisher, without a recovery target (live-only ingest).
   *
   * @param publisherId the publisher id (u64)
   */
  record ActiveLiveOnly(long publisherId) implements KvSourceStatus {}

  /**
   * Immutable and thread-safe: the source cannot be used.
   *
   * @param reason why
   */
  record Ambiguous(AmbiguityReason reason) implements KvSourceStatus {}

  /** Immutable and thread-safe: why a KV source is ambiguous. */
  enum AmbiguityReason {
    /** More than one publisher id advertises the rank. */
    INCARNATIONS,
    /** A publisher re-advertised with a different descriptor (sticky until that publisher is removed). */
    CONFLICTING_DESCRIPTOR,
    /** The endpoint's runtime configs resolve to more than one kv-state endpoint. */
    ENDPOINT_MAPPING
  }

  /**
   * True for {@link ActiveRecoverable} and {@link ActiveLiveOnly}. (The interface holds no constant of its own
   * records: with a default method, initializing a record initializes this interface, and a constant here needing a
   * record initialized would be a class-initialization deadlock between two threads; {@link Missing#INSTANCE} lives
   * in its record for that reason.)
   */
  default boolean isActive() {
    return this instanceof ActiveRecoverable || this instanceof ActiveLiveOnly;
  }

  /**
   * True if going from {@code from} to {@code to} needs a cold reset of the rank: any change other than
   * {@code Missing → Active*} (§2.4).
   */
  static boolean requiresColdReset(KvSourceStatus from, KvSourceStatus to) {
    if (from.equals(to)) {
      return false;
    }
    return !(from instanceof Missing && to.isActive());
  }
}
