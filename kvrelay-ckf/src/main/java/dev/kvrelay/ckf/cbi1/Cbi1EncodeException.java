package dev.kvrelay.ckf.cbi1;

import java.util.Objects;

/**
 * Immutable and thread-safe: the CBI1 encoder refused its input ({@code ckf-cbi1.md} §6.5). Nothing was
 * written to a caller-provided buffer when this is thrown.
 */
public final class Cbi1EncodeException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why the encoder refused; upstream error names in the constant docs. */
  public enum Reason {
    /** {@code DeltaImageCount}: more than {@link Cbi1#MAX_DELTA_IMAGES} images. */
    DELTA_IMAGE_COUNT,
    /**
     * {@code BucketIndex}: an image bucket {@code ≥ B}. A negative {@code int} is the u32 value
     * {@code ≥ 2^31}, hence also {@code ≥ B}; upstream's {@code BucketIndexOverflow} (index above u32)
     * cannot arise from an {@code int[]}.
     */
    BUCKET_INDEX,
    /** {@code SnapshotBucketCount}: the snapshot word array length is not B. */
    SNAPSHOT_BUCKET_COUNT,
    /** {@code UnsupportedFormatIdentity}: not (format_version 1, fingerprint_bits 16, slots_per_bucket 4). */
    UNSUPPORTED_FORMAT_IDENTITY,
    /** {@code BucketCount}: B is not a power of two in {@code [2, 2^24]}. */
    BUCKET_COUNT,
    /** Java only: the image count is negative or exceeds the length of the bucket or word array. */
    IMAGE_ARRAY_LENGTH,
    /** Java only: the requested chunk index is outside {@code [0, chunkCount(B))}. */
    CHUNK_INDEX,
    /** Java only: the caller-provided output range cannot hold the frame. */
    OUTPUT_CAPACITY
  }

  private final Reason reason;

  Cbi1EncodeException(Reason reason, String detail) {
    super(reason + ": " + detail);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Why the encoder refused. */
  public Reason reason() {
    return reason;
  }
}
