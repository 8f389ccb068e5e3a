package dev.kvrelay.ckf.producer;

/** Immutable and thread-safe reason why a drain published nothing. */
public enum NoPublication implements CkfPublication {
  /** No pending event and no dirty bucket: nothing to drain. */
  NOTHING_PENDING,
  /**
   * The window held events or touches but no bucket changed: "unchanged publication" (counted); no
   * delta, the sequence does not advance.
   */
  UNCHANGED,
  /** Materialization is disabled (no subscriber lease yet): the batch was dropped, sequence unchanged. */
  NO_SUBSCRIBER,
  /** The publisher is fenced: the tail was discarded. */
  FENCED
}
