package dev.kvrelay.ckf.producer;

/** Immutable and thread-safe reason why a publisher is fenced. */
public enum FenceReason {
  /** The publication sequence reached {@code u64::MAX}. */
  SEQUENCE_EXHAUSTED,
  /** Handing a delta to the transport failed; whether consumers saw it is unknown. */
  DELIVERY_UNCERTAIN
}
