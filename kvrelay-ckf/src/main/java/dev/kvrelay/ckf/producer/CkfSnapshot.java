package dev.kvrelay.ckf.producer;

/**
 * Immutable and thread-safe, provided nobody writes into the array returned by {@link #words()}
 * (exposed without copying for the CBI1 encoder): a full copy of the producer table at publication
 * sequence {@code sequence}; the next delta on its lease goes {@code sequence → sequence + 1}.
 */
public final class CkfSnapshot implements CkfPublication {
  private final long lease;
  private final long sequence;
  private final long[] words;

  CkfSnapshot(long lease, long sequence, long[] words) {
    this.lease = lease;
    this.sequence = sequence;
    this.words = words;
  }

  /** The subscriber lease this snapshot starts. */
  public long lease() {
    return lease;
  }

  /** The publication sequence the snapshot represents (unsigned). */
  public long sequence() {
    return sequence;
  }

  /** Number of buckets. */
  public int bucketCount() {
    return words.length;
  }

  /** All bucket words; the backing array: do not modify. */
  public long[] words() {
    return words;
  }

  @Override
  public String toString() {
    return "CkfSnapshot[lease=" + Long.toUnsignedString(lease) + ", sequence=" + Long.toUnsignedString(sequence)
        + ", buckets=" + words.length + "]";
  }
}
