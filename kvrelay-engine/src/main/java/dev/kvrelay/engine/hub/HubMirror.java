package dev.kvrelay.engine.hub;

import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: guarded by the owning {@link HubSlot}'s monitor — the hub's mirror of the published CKF of one
 * lease: the bucket words at the mirror's actor sequence, the lease's base sequence (wire S = 0), and the one
 * snapshot copy new subscribers share until the next change.
 *
 * <p>A publication that does not fit (wrong bucket count, sequence gap, bucket out of range, empty delta) changes
 * nothing and is answered with the reason; the hub then fails terminally.
 */
final class HubMirror {
  private long @Nullable [] words;
  private long @Nullable [] sharedCopy;
  private long leaseBase;
  private long sequence;

  /** True while a mirror is held (the hub is Ready). */
  boolean present() {
    return words != null;
  }

  /** Installs the lease's barrier snapshot: its sequence becomes wire sequence 0. */
  void install(CkfSnapshot barrier) {
    words = barrier.words().clone();
    sharedCopy = null;
    leaseBase = barrier.sequence();
    sequence = barrier.sequence();
  }

  /** Drops the mirror (eviction, fault, retirement). */
  void clear() {
    words = null;
    sharedCopy = null;
  }

  /**
   * Re-bases the mirror on a snapshot of the current lease at the next sequence (an oversized publication).
   *
   * @return null when applied, else why the snapshot does not fit (nothing changed)
   */
  @Nullable String rebase(CkfSnapshot s) {
    long[] m = words();
    if (s.bucketCount() != m.length) {
      return "snapshot of " + s.bucketCount() + " buckets for a filter of " + m.length;
    }
    if (s.sequence() != sequence + 1) {
      return "snapshot at " + Long.toUnsignedString(s.sequence()) + " after mirror sequence "
          + Long.toUnsignedString(sequence);
    }
    System.arraycopy(s.words(), 0, m, 0, m.length);
    sequence = s.sequence();
    sharedCopy = null;
    return null;
  }

  /**
   * Applies a delta of the current lease.
   *
   * @return null when applied, else why the delta does not fit (nothing changed)
   */
  @Nullable String apply(CkfDelta d) {
    long[] m = words();
    if (d.baseSequence() != sequence) {
      return "sequence gap: delta base " + Long.toUnsignedString(d.baseSequence()) + ", mirror at "
          + Long.toUnsignedString(sequence);
    }
    int n = d.imageCount();
    if (n == 0) {
      return "empty delta";
    }
    int[] buckets = d.buckets();
    long[] images = d.words();
    for (int i = 0; i < n; i++) {
      int b = buckets[i];
      if (b < 0 || b >= m.length) {
        return "delta bucket " + b + " out of range " + m.length;
      }
    }
    for (int i = 0; i < n; i++) {
      m[buckets[i]] = images[i];
    }
    sequence = d.sequence();
    sharedCopy = null;
    return null;
  }

  /** The lease-relative wire sequence of actor sequence {@code actorSequence} (wan-grpc §2.5 sequence restart). */
  long toWire(long actorSequence) {
    return actorSequence - leaseBase;
  }

  /** The mirror's own wire sequence (the S a new subscriber's snapshot carries). */
  long wireSequence() {
    return sequence - leaseBase;
  }

  /** The copy new subscribers share; taken once per mirror change, never written afterwards. */
  long[] sharedCopy() {
    long[] copy = sharedCopy;
    if (copy == null) {
      copy = words().clone();
      sharedCopy = copy;
    }
    return copy;
  }

  private long[] words() {
    long[] m = words;
    if (m == null) {
      throw new IllegalStateException("no mirror");
    }
    return m;
  }
}
