package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.CuckooTable;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool actor, owned by one {@link CkfProducer}. The publication half of
 * the producer ({@code ckf-cbi1.md} §5): the last published sequence, the subscriber lease, the fence and
 * the publication counters. It turns a drained dirty window into a delta, an oversized-delta snapshot or a
 * {@link NoPublication} reason; the producer keeps the pending-event count and decides when to drain.
 */
final class PublicationSequencer {
  private long lastSequence;
  private boolean hasLease;
  private long lease;
  private @Nullable FenceReason fence;

  private long unchangedPublications;
  private long netRevertedBuckets;
  private long publishedDeltas;
  private long publishedSnapshots;
  private long droppedWithoutSubscriber;
  private long oversizedDeltas;

  /**
   * The part of {@link CkfProducer#drain()} after its "nothing pending" check: publishes the changed
   * buckets of {@code dirty} against {@code table} (or says why not) and clears the window in every case.
   */
  CkfPublication publish(CuckooTable table, DirtyWindow dirty) {
    int changed = dirty.changedCount(table);
    netRevertedBuckets += dirty.touchedCount() - changed;
    if (fence != null) {
      dirty.clear();
      return NoPublication.FENCED;
    }
    if (changed == 0) {
      dirty.clear();
      unchangedPublications++;
      return NoPublication.UNCHANGED;
    }
    if (!hasLease) {
      dirty.clear();
      droppedWithoutSubscriber++;
      return NoPublication.NO_SUBSCRIBER;
    }
    if (lastSequence == -1L) {
      dirty.clear();
      fence = FenceReason.SEQUENCE_EXHAUSTED;
      return NoPublication.FENCED;
    }
    if (changed > CkfDelta.MAX_IMAGES) {
      dirty.clear();
      oversizedDeltas++;
      publishedSnapshots++;
      lastSequence++;
      return new CkfSnapshot(lease, lastSequence, table.copyWords());
    }
    int[] buckets = new int[changed];
    long[] words = new long[changed];
    dirty.copyChanged(table, buckets, words);
    dirty.clear();
    long base = lastSequence;
    lastSequence = base + 1;
    publishedDeltas++;
    return new CkfDelta(lease, base, lastSequence, buckets, words);
  }

  /**
   * The precondition of {@link CkfProducer#snapshotAfterBarrier(long)}; changes nothing.
   *
   * @throws CkfPublicationException {@code SEQUENCE_EXHAUSTED} if the sequence is at {@code u64::MAX}
   *     or the publisher is fenced for exhaustion
   */
  void checkBarrierAllowed() throws CkfPublicationException {
    if (lastSequence == -1L || fence == FenceReason.SEQUENCE_EXHAUSTED) {
      throw new CkfPublicationException(FenceReason.SEQUENCE_EXHAUSTED,
          "publication sequence exhausted at " + Long.toUnsignedString(lastSequence));
    }
  }

  /**
   * The rest of the barrier once the tail was drained: installs {@code newLease}, clears the fence and
   * returns {@code tail} (if it is a delta) with the snapshot of {@code words} at the current sequence.
   */
  BarrierSnapshot installLease(long newLease, CkfPublication tail, long[] words) {
    lease = newLease;
    hasLease = true;
    fence = null;
    publishedSnapshots++;
    return new BarrierSnapshot(tail instanceof CkfDelta d ? d : null, new CkfSnapshot(newLease, lastSequence, words));
  }

  /** As {@link CkfProducer#deliveryFailed(CkfDelta)}. */
  void deliveryFailed(CkfDelta delta) {
    if (delta.sequence() == lastSequence) {
      lastSequence = delta.baseSequence();
    }
    fence = FenceReason.DELIVERY_UNCERTAIN;
  }

  /** As {@link CkfProducer#retireLease()}. */
  void retireLease() {
    hasLease = false;
    lease = 0;
  }

  long lastSequence() {
    return lastSequence;
  }

  long lease() {
    return lease;
  }

  boolean hasLease() {
    return hasLease;
  }

  @Nullable FenceReason fenceReason() {
    return fence;
  }

  long unchangedPublications() {
    return unchangedPublications;
  }

  long netRevertedBuckets() {
    return netRevertedBuckets;
  }

  long publishedDeltas() {
    return publishedDeltas;
  }

  long publishedSnapshots() {
    return publishedSnapshots;
  }

  long droppedWithoutSubscriber() {
    return droppedWithoutSubscriber;
  }

  long oversizedDeltas() {
    return oversizedDeltas;
  }

  void forceLastSequenceForTest(long sequence) {
    lastSequence = sequence;
  }
}
