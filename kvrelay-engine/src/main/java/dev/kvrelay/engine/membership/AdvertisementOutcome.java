package dev.kvrelay.engine.membership;

/**
 * Immutable and thread-safe: what {@link KvSourceAdvertisements} did with one advertisement or removal.
 * The {@code REJECTED_*} outcomes are bad input and changed nothing.
 */
enum AdvertisementOutcome {
  /** A new advertisement was recorded. */
  ADDED,
  /** The same advertisement was already recorded; nothing changed. */
  UNCHANGED,
  /** A known publisher re-advertised a different descriptor: its ranks are now sticky-ambiguous. */
  CONFLICTING_DESCRIPTOR,
  /** The advertisement was removed (and any sticky conflict of that publisher cleared). */
  REMOVED,
  /** Bad input: the topic is not {@value KvSourceAdvertisements#KV_EVENTS_TOPIC}. */
  REJECTED_TOPIC,
  /** Bad input: the scope is not {@code Endpoint(kv_state_endpoint)} of the metadata. */
  REJECTED_SCOPE_MISMATCH,
  /** Bad input: removal of an advertisement that is not recorded. */
  REJECTED_UNKNOWN_SOURCE;

  /** True if the call changed the advertisement state. */
  public boolean changedState() {
    return this == ADDED || this == CONFLICTING_DESCRIPTOR || this == REMOVED;
  }
}
