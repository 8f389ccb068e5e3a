package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.CuckooTable;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: reusable scratch confined to the pool actor, owned by one {@link CkfProducer}. The
 * producer's memory-level parallelism: prepares the CKF addresses of an event's blocks and reads (without
 * changing anything) the state their updates will need, {@link CkfProducer#TOUCH_AHEAD} blocks ahead, so
 * that the independent cache misses of many blocks are in flight together before the dependent updates
 * need them. Java has no prefetch; the reads feed a sink so that they are not eliminated. Allocation-free
 * once the address scratch fits the largest Stored batch.
 */
final class TouchAhead {
  /** "No prepared address": a prepared address is never 0 (its fingerprint field is non-zero). */
  static final long NOT_PREPARED = 0L;

  /** Per-block prepared CKF addresses of the current Stored event (grown to the largest batch). */
  private long[] packedScratch = new long[64];
  /** Canonical hashes of the current removal chunk. */
  private final long[] removalCanonical = new long[CkfProducer.TOUCH_AHEAD];
  /** Prepared CKF addresses of the current removal chunk. */
  private final long[] removalPacked = new long[CkfProducer.TOUCH_AHEAD];
  /** Sink of the touch-ahead reads, so that the JIT cannot drop them; its value means nothing. */
  @SuppressWarnings("UnusedVariable") // written only, on purpose: the store keeps the touch reads alive
  private long touchSink;

  /**
   * Prepares the CKF address of each of the {@code n} blocks whose canonical hashes {@code prep} chained
   * (before it classifies them), and touches in one round the lineage slots of every block (the expected
   * insertion walk from its home, {@link LongLongMap#touchRun}, for the first {@link CkfProducer#TOUCH_AHEAD};
   * the home key only beyond) and the owners-map home slot and
   * both candidate buckets of the first {@link CkfProducer#TOUCH_AHEAD} (the rest are touched one window
   * ahead while applying, see {@link #touchStored}). Returns the addresses: scratch, valid until the next
   * call.
   */
  long[] prepareStored(CkfAddressing addressing, OwnersMap owners, CuckooTable table, StoredPreparation prep,
      @Nullable LongLongMap lineage, StoredBatch event, int n) {
    if (packedScratch.length < n) {
      packedScratch = new long[Math.max(n, packedScratch.length + (packedScratch.length >>> 1))];
    }
    long[] packed = packedScratch;
    for (int i = 0; i < n; i++) {
      packed[i] = addressing.prepare(prep.canonical(i));
    }
    int ahead = Math.min(n, CkfProducer.TOUCH_AHEAD);
    long sink = 0;
    if (lineage != null) {
      // The classification reads these first; beyond the window its lookups still overlap.
      for (int i = 0; i < ahead; i++) {
        sink ^= lineage.touchRun(event.rawExternalHash(i));
      }
      for (int i = ahead; i < n; i++) {
        sink ^= lineage.touchKey(event.rawExternalHash(i));
      }
    }
    for (int i = 0; i < ahead; i++) {
      sink ^= owners.touch(prep.canonical(i)) ^ table.touch(packed[i]);
    }
    touchSink ^= sink;
    return packed;
  }

  /**
   * Touches the owners-map home slot and both candidate buckets of Stored block {@code i}, and for a new
   * mapping its lineage insertion walk ({@link LongLongMap#touchRun}).
   */
  void touchStored(OwnersMap owners, CuckooTable table, StoredPreparation prep, @Nullable LongLongMap lineage,
      StoredBatch event, long[] packed, int i) {
    long sink = owners.touch(prep.canonical(i)) ^ table.touch(packed[i]);
    if (lineage != null && prep.kind(i) == StoredPreparation.NEW_MAPPING) {
      sink ^= lineage.touchRun(event.rawExternalHash(i));
    }
    touchSink ^= sink;
  }

  /**
   * One removal chunk {@code hashes[start, end)} (at most {@link CkfProducer#TOUCH_AHEAD} ids) in three
   * tight passes: touches every id's lineage slots (its home and the walk a removal's backward shift is
   * expected to read, {@link LongLongMap#touchRun}); resolves each known id (the lookups now overlap),
   * recording its canonical hash and prepared address for {@link #removalPacked}; then touches the
   * owners-map home slot and both candidate buckets of every resolved id. The last pass does nothing but
   * issue loads, so the misses of the whole chunk are in flight together.
   */
  void touchRemovals(CkfAddressing addressing, OwnersMap owners, CuckooTable table, LongLongMap lineage,
      long[] hashes, int start, int end) {
    long sink = 0;
    for (int i = start; i < end; i++) {
      sink ^= lineage.touchRun(hashes[i]);
    }
    for (int i = start; i < end; i++) {
      int l = lineage.indexOf(hashes[i]);
      if (l == LongLongMap.MISSING) {
        removalCanonical[i - start] = 0;
        removalPacked[i - start] = NOT_PREPARED;
        continue;
      }
      long canonical = lineage.valueAt(l);
      removalCanonical[i - start] = canonical;
      removalPacked[i - start] = addressing.prepare(canonical);
    }
    for (int j = 0, n = end - start; j < n; j++) {
      long packed = removalPacked[j];
      if (packed != NOT_PREPARED) {
        sink ^= owners.touch(removalCanonical[j]) ^ table.touch(packed);
      }
    }
    touchSink ^= sink;
  }

  /**
   * The prepared address {@link #touchRemovals} recorded for chunk position {@code j} if it resolved to
   * {@code canonical}, else {@link #NOT_PREPARED}. A key found now was found by the touch pass too, with
   * the same value; the check is a guard.
   */
  long removalPacked(int j, long canonical) {
    return removalCanonical[j] == canonical ? removalPacked[j] : NOT_PREPARED;
  }
}
