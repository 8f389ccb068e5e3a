package dev.kvrelay.engine.load;

/** Immutable and thread-safe: completeness of a serving-load view (wire enum {@code DataStatus}, wan-grpc.md §1.3). */
public enum DataStatus {
  /** Every expected source has fresh views of every declared rank. */
  COMPLETE,
  /** Some views are fresh, but coverage is incomplete. */
  DEGRADED,
  /** No fresh view. */
  UNAVAILABLE
}
