package dev.kvrelay.ckf.cbi1;

import java.util.Arrays;
import java.util.Objects;

/**
 * Immutable by convention (the arrays are owned by this value): a sparse list of absolute bucket
 * images, image {@code i} setting bucket {@code buckets[i]} to {@code words[i]}. Equality compares
 * array contents.
 *
 * <p>{@code ArrayRecordComponent} is suppressed: equality, hash and text use the contents, and the arrays are
 * handed over without a copy (decode path).
 *
 * @param buckets bucket indexes
 * @param words absolute bucket words
 */
@SuppressWarnings("ArrayRecordComponent")
public record BucketImages(int[] buckets, long[] words) {

  /** Rejects arrays of different lengths. */
  public BucketImages {
    Objects.requireNonNull(buckets, "buckets");
    Objects.requireNonNull(words, "words");
    if (buckets.length != words.length) {
      throw new IllegalArgumentException(buckets.length + " buckets but " + words.length + " words");
    }
  }

  /** Number of images. */
  public int size() {
    return buckets.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BucketImages b && Arrays.equals(buckets, b.buckets) && Arrays.equals(words, b.words);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(buckets) * 31 + Arrays.hashCode(words);
  }

  @Override
  public String toString() {
    return "BucketImages[" + buckets.length + " images]";
  }
}
