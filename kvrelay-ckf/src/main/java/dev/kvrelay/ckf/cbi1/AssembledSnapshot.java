package dev.kvrelay.ckf.cbi1;

import java.util.Arrays;
import java.util.Objects;

/**
 * Immutable by convention ({@code words} is owned by this value and never touched again by the
 * {@link SnapshotAssembly} that produced it): a completely reassembled snapshot, all B bucket words at
 * one publication sequence. Equality compares array contents.
 *
 * <p>{@code ArrayRecordComponent} is suppressed: equality, hash and text use the contents, and the table is
 * handed over without a copy (decode path).
 *
 * @param epoch the snapshot sequence S (header epoch of every chunk)
 * @param words the dense table, {@code words.length == B}
 */
@SuppressWarnings("ArrayRecordComponent")
public record AssembledSnapshot(long epoch, long[] words) {

  /** Rejects a null table. */
  public AssembledSnapshot {
    Objects.requireNonNull(words, "words");
  }

  /** The bucket count B. */
  public int bucketCount() {
    return words.length;
  }

  /**
   * The non-zero words as sparse images in ascending bucket order: upstream's {@code (epoch, images)}
   * result. Allocates two arrays sized to the non-zero count.
   */
  public BucketImages nonZeroImages() {
    int n = 0;
    for (long w : words) {
      if (w != 0) {
        n++;
      }
    }
    int[] buckets = new int[n];
    long[] values = new long[n];
    for (int i = 0, j = 0; i < words.length; i++) {
      if (words[i] != 0) {
        buckets[j] = i;
        values[j++] = words[i];
      }
    }
    return new BucketImages(buckets, values);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AssembledSnapshot s && epoch == s.epoch && Arrays.equals(words, s.words);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(epoch) * 31 + Arrays.hashCode(words);
  }

  @Override
  public String toString() {
    return "AssembledSnapshot[epoch=" + Long.toUnsignedString(epoch) + ", " + words.length + " words]";
  }
}
