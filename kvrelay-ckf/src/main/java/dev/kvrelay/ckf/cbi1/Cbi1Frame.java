package dev.kvrelay.ckf.cbi1;

import java.util.Arrays;
import java.util.Objects;

/**
 * Immutable by convention and safe to share once published: a decoded CBI1 frame, one snapshot chunk
 * or one delta. The arrays are handed over by the decoder and must not be modified afterwards.
 *
 * <p>Equality compares array contents.
 */
public sealed interface Cbi1Frame permits Cbi1Frame.SnapshotChunk, Cbi1Frame.Delta {

  /** The header (seed, bucket count, dc_id, epoch). */
  Cbi1Header header();

  /** {@code header().dcId()}. */
  default long dcId() {
    return header().dcId();
  }

  /** {@code header().epoch()}: the publication sequence. */
  default long epoch() {
    return header().epoch();
  }

  /**
   * Immutable by convention ({@code words} is owned by this value): one chunk of a snapshot (flags 1).
   *
   * <p>{@code ArrayRecordComponent} is suppressed: equality, hash and text use the contents, and the decoder
   * hands the array over without a copy.
   *
   * @param header the frame header; {@code epoch} is the snapshot sequence
   * @param chunkIndex u32 chunk index, {@code < chunkCount}
   * @param chunkCount u32 chunk count, {@code ≥ 1}
   * @param bucketOffset index of the first bucket in {@code words}; not checked against {@code chunkIndex}
   *     by the decoder ({@link SnapshotAssembly} checks contiguity)
   * @param words the dense bucket words {@code [bucketOffset, bucketOffset + words.length)}
   */
  @SuppressWarnings("ArrayRecordComponent")
  record SnapshotChunk(Cbi1Header header, long chunkIndex, long chunkCount, long bucketOffset, long[] words)
      implements Cbi1Frame {

    /** Rejects values no decoder could produce. */
    public SnapshotChunk {
      Objects.requireNonNull(header, "header");
      Objects.requireNonNull(words, "words");
      if (chunkCount < 1 || chunkCount > 0xFFFF_FFFFL || chunkIndex < 0 || chunkIndex >= chunkCount) {
        throw new IllegalArgumentException("chunk " + chunkIndex + " of " + chunkCount);
      }
      if (bucketOffset < 0 || words.length > Cbi1.SNAPSHOT_CHUNK_BUCKETS) {
        throw new IllegalArgumentException(
            "bucketOffset " + bucketOffset + " with " + words.length + " words");
      }
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SnapshotChunk c
          && header.equals(c.header)
          && chunkIndex == c.chunkIndex
          && chunkCount == c.chunkCount
          && bucketOffset == c.bucketOffset
          && Arrays.equals(words, c.words);
    }

    @Override
    public int hashCode() {
      return Objects.hash(header, chunkIndex, chunkCount, bucketOffset) * 31 + Arrays.hashCode(words);
    }

    @Override
    public String toString() {
      return "SnapshotChunk[" + header + ", chunk " + chunkIndex + "/" + chunkCount + ", offset "
          + bucketOffset + ", " + words.length + " words]";
    }
  }

  /**
   * Immutable by convention (the arrays are owned by this value): a delta of absolute bucket images
   * (flags 2). Images are in wire order; empty deltas and repeated bucket indexes are legal CBI1 (the
   * consumer core rejects them).
   *
   * <p>{@code ArrayRecordComponent} is suppressed: equality, hash and text use the contents, and the decoder
   * hands the arrays over without a copy.
   *
   * @param header the frame header; {@code epoch} is the new sequence
   * @param baseEpoch the sequence this delta applies on top of (= envelope {@code base_sequence})
   * @param buckets bucket index of image {@code i}, each {@code < header.bucketCount()}
   * @param words absolute bucket word of image {@code i}
   */
  @SuppressWarnings("ArrayRecordComponent")
  record Delta(Cbi1Header header, long baseEpoch, int[] buckets, long[] words) implements Cbi1Frame {

    /** Rejects arrays of different lengths. */
    public Delta {
      Objects.requireNonNull(header, "header");
      Objects.requireNonNull(buckets, "buckets");
      Objects.requireNonNull(words, "words");
      if (buckets.length != words.length) {
        throw new IllegalArgumentException(buckets.length + " buckets but " + words.length + " words");
      }
    }

    /** Number of images. */
    public int imageCount() {
      return buckets.length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Delta d
          && header.equals(d.header)
          && baseEpoch == d.baseEpoch
          && Arrays.equals(buckets, d.buckets)
          && Arrays.equals(words, d.words);
    }

    @Override
    public int hashCode() {
      return (Objects.hash(header, baseEpoch) * 31 + Arrays.hashCode(buckets)) * 31 + Arrays.hashCode(words);
    }

    @Override
    public String toString() {
      return "Delta[" + header + ", base " + Long.toUnsignedString(baseEpoch) + ", " + buckets.length
          + " images]";
    }
  }
}
