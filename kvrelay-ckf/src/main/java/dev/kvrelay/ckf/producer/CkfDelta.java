package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.cbi1.Cbi1;
import java.util.Arrays;

/**
 * Immutable and thread-safe, provided nobody writes into the arrays returned by {@link #buckets()} and
 * {@link #words()} (exposed without copying for the CBI1 encoder): one published delta of absolute
 * bucket images (bucket index, word) in first-touch order, moving a consumer from {@code baseSequence}
 * to {@code sequence = baseSequence + 1}.
 */
public final class CkfDelta implements CkfPublication {
  /** Largest number of images a CBI1 delta may carry ({@code max_delta_images} = 349 525). */
  public static final int MAX_IMAGES = Cbi1.MAX_DELTA_IMAGES;

  private final long lease;
  private final long baseSequence;
  private final long sequence;
  private final int[] buckets;
  private final long[] words;

  CkfDelta(long lease, long baseSequence, long sequence, int[] buckets, long[] words) {
    this.lease = lease;
    this.baseSequence = baseSequence;
    this.sequence = sequence;
    this.buckets = buckets;
    this.words = words;
  }

  /** The subscriber lease this delta was published on. */
  public long lease() {
    return lease;
  }

  /** The sequence a consumer must have installed (unsigned). */
  public long baseSequence() {
    return baseSequence;
  }

  /** The sequence after applying this delta (unsigned). */
  public long sequence() {
    return sequence;
  }

  /** Number of images ({@code ≥ 1}). */
  public int imageCount() {
    return buckets.length;
  }

  /** Bucket index of image {@code i}. */
  public int bucket(int i) {
    return buckets[i];
  }

  /** Absolute word of image {@code i}. */
  public long word(int i) {
    return words[i];
  }

  /** Bucket indexes, one per image; the backing array: do not modify. */
  public int[] buckets() {
    return buckets;
  }

  /** Absolute words, one per image; the backing array: do not modify. */
  public long[] words() {
    return words;
  }

  @Override
  public String toString() {
    return "CkfDelta[lease=" + Long.toUnsignedString(lease) + ", " + Long.toUnsignedString(baseSequence) + "→"
        + Long.toUnsignedString(sequence) + ", images=" + buckets.length + "]";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CkfDelta d && d.lease == lease && d.baseSequence == baseSequence && d.sequence == sequence
        && Arrays.equals(d.buckets, buckets) && Arrays.equals(d.words, words);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(sequence) * 31 + Arrays.hashCode(buckets);
  }
}
