package dev.kvrelay.ckf.cbi1;

import java.util.Objects;

/**
 * Immutable and thread-safe: a CBI1 frame, or a sequence of snapshot chunks, was rejected
 * ({@code ckf-cbi1.md} §6.6).
 *
 * <p>The reasons are finer than upstream's error enum so that tests and metrics can tell the format
 * fields apart; {@link Reason#upstreamName()} gives the spec's grouping.
 */
public final class Cbi1DecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why the frame was rejected, in the decoder's check order. */
  public enum Reason {
    /** Frame shorter than the 48-byte header. */
    TRUNCATED("Truncated"),
    /** Frame longer than {@link Cbi1#MAX_FRAME_BYTES}. */
    FRAME_TOO_LARGE("FrameTooLarge"),
    /** Bytes 0..4 are not {@code "CBI1"}. */
    MAGIC("Magic"),
    /** wire_version is not 1. */
    WIRE_VERSION("WireVersion"),
    /** body_checksum is not the low 32 bits of unseeded XXH3-64 over bytes [48..]. */
    CHECKSUM("Checksum"),
    /** format_version is not 1. */
    FORMAT_VERSION("Format(Version)"),
    /** fingerprint_bits is not 16. */
    FORMAT_MISMATCH_FINGERPRINT_BITS("Format(Mismatch)"),
    /** slots_per_bucket is not 4. */
    FORMAT_MISMATCH_SLOTS_PER_BUCKET("Format(Mismatch)"),
    /** seed differs from the expected format's. */
    FORMAT_MISMATCH_SEED("Format(Mismatch)"),
    /** bucket_count differs from the expected format's. */
    FORMAT_MISMATCH_BUCKET_COUNT("Format(Mismatch)"),
    /** flags is neither 1 (snapshot chunk) nor 2 (delta). */
    FLAGS("Flags"),
    /** The body is inconsistent with its own fields; the message carries the detail. */
    MALFORMED("Malformed"),
    /** A delta announces more than {@link Cbi1#MAX_DELTA_IMAGES} images. */
    DELTA_IMAGE_COUNT("DeltaImageCount"),
    /** A chunk carries more than {@link Cbi1#SNAPSHOT_CHUNK_BUCKETS} words. */
    SNAPSHOT_CHUNK_WORD_COUNT("SnapshotChunkWordCount"),
    /** Snapshot assembly: a frame out of sequence (not a chunk, wrong index, count, epoch, B or offset). */
    CHUNK_SEQUENCE("ChunkSequence"),
    /** Snapshot assembly: the last chunk arrived but the chunks did not cover exactly B buckets. */
    INCOMPLETE_COVERAGE("IncompleteCoverage");

    private final String upstreamName;

    Reason(String upstreamName) {
      this.upstreamName = upstreamName;
    }

    /** The upstream error this reason belongs to, e.g. {@code Format(Mismatch)}. */
    public String upstreamName() {
      return upstreamName;
    }

    /** True for the four reasons upstream reports as {@code Format(Mismatch)}. */
    public boolean isFormatMismatch() {
      return upstreamName.equals("Format(Mismatch)");
    }
  }

  private final Reason reason;
  private final String detail;

  Cbi1DecodeException(Reason reason, String detail) {
    super(reason + ": " + detail);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.detail = Objects.requireNonNull(detail, "detail");
  }

  /** Why the frame was rejected. */
  public Reason reason() {
    return reason;
  }

  /** Human-readable specifics (which field, which values). */
  public String detail() {
    return detail;
  }
}
