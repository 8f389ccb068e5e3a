package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: what a new catalog revision means for one pool's replica and load state.
 *
 * @param pool the pool
 * @param kind the change
 * @param previous the producer the replica was subscribed with, null for {@link Kind#ADDED}
 * @param current the producer to subscribe with, null for {@link Kind#DROPPED} and {@link Kind#QUARANTINED}
 * @param detail why a pool was quarantined, else empty
 */
record PoolChange(
    KvPoolId pool, Kind kind, @Nullable ProducerIdentity previous, @Nullable ProducerIdentity current, String detail) {

  /** Immutable: the kind of change. */
  public enum Kind {
    /** A new pool: subscribe with {@code current}. */
    ADDED,
    /** A new ProducerIdentity for a known pool: drop the replica and resubscribe with {@code current}. */
    RESUBSCRIBE,
    /** The pool is missing from the snapshot: drop its CKF and load state. */
    DROPPED,
    /** The descriptor is malformed or unsupported: drop its CKF and load state, do not subscribe. */
    QUARANTINED
  }
}
