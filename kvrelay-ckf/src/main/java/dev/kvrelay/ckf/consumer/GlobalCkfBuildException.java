package dev.kvrelay.ckf.consumer;

import java.util.Objects;

/** Immutable and thread-safe: a consumer manifest, indexer or lane claim could not be built. */
public final class GlobalCkfBuildException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable: why the build failed. */
  public enum Reason {
    /** The manifest binds no lane. */
    NO_CONFIGURED_LANES,
    /** The manifest lists more than 16 lanes. */
    TOO_MANY_LANES,
    /** Two lanes have the same dc id ({@code DuplicateDcLane}). */
    DUPLICATE_DC_LANE,
    /** The verification window is outside {@code 1..=8}. */
    INVALID_VERIFICATION_WINDOW,
    /** A lane index outside {@code 0..16}. */
    INVALID_LANE,
    /** The lane has no owner in the manifest. */
    UNCONFIGURED_LANE,
    /** The lane already has a live ingestor. */
    LANE_ALREADY_CLAIMED
  }

  private final Reason reason;

  GlobalCkfBuildException(Reason reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The typed reason. */
  public Reason reason() {
    return reason;
  }
}
