package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.CuckooTable;
import java.util.Arrays;

/**
 * Not thread-safe: confined to the pool actor. The buckets written since the last drain: a bitmap of
 * {@code B} bits, the buckets in first-touch order, and each bucket's value at first touch.
 *
 * <p>Marking allocates only when the first-touch list outgrows its arrays (doubling, capped at
 * {@code B}); the arrays are then kept.
 */
final class DirtyWindow implements CuckooTable.WriteObserver {
  private final int bucketCount;
  private final long[] bitmap;
  private int[] touched;
  private long[] originals;
  private int count;

  DirtyWindow(int bucketCount) {
    this.bucketCount = bucketCount;
    this.bitmap = new long[(bucketCount + 63) >>> 6];
    int initial = Math.min(bucketCount, 1024);
    this.touched = new int[initial];
    this.originals = new long[initial];
  }

  @Override
  public void bucketWritten(int bucket, long previousWord) {
    long bit = 1L << bucket;
    int w = bucket >>> 6;
    if ((bitmap[w] & bit) != 0) {
      return;
    }
    bitmap[w] |= bit;
    if (count == touched.length) {
      int grown = (int) Math.min(bucketCount, Math.max(16L, 2L * count));
      touched = Arrays.copyOf(touched, grown);
      originals = Arrays.copyOf(originals, grown);
    }
    touched[count] = bucket;
    originals[count] = previousWord;
    count++;
  }

  /** Number of touched buckets. */
  int touchedCount() {
    return count;
  }

  boolean isEmpty() {
    return count == 0;
  }

  boolean isTouched(int bucket) {
    return (bitmap[bucket >>> 6] & (1L << bucket)) != 0;
  }

  /** Bucket touched {@code k}-th (first-touch order). */
  int touchedBucket(int k) {
    return touched[k];
  }

  /** Value of the {@code k}-th touched bucket at its first touch. */
  long originalAt(int k) {
    return originals[k];
  }

  /** Number of touched buckets whose current word in {@code table} differs from the original. */
  int changedCount(CuckooTable table) {
    int changed = 0;
    for (int k = 0; k < count; k++) {
      if (table.word(touched[k]) != originals[k]) {
        changed++;
      }
    }
    return changed;
  }

  /**
   * Writes the changed buckets (first-touch order) and their current words into the arrays, which
   * must hold {@link #changedCount(CuckooTable)} entries; returns how many were written.
   */
  int copyChanged(CuckooTable table, int[] buckets, long[] words) {
    int n = 0;
    for (int k = 0; k < count; k++) {
      int b = touched[k];
      long current = table.word(b);
      if (current != originals[k]) {
        buckets[n] = b;
        words[n] = current;
        n++;
      }
    }
    return n;
  }

  /** Forgets every touch. */
  void clear() {
    for (int k = 0; k < count; k++) {
      int b = touched[k];
      bitmap[b >>> 6] &= ~(1L << b);
    }
    count = 0;
  }

  long footprintBytes() {
    return 32 + HashMix.arrayBytes(bitmap.length, 8) + HashMix.arrayBytes(touched.length, 4)
        + HashMix.arrayBytes(originals.length, 8);
  }
}
