package dev.kvrelay.engine.hub;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.producer.CkfDelta;
import java.lang.reflect.Constructor;
import java.util.concurrent.CancellationException;

/**
 * Thread-safe (stateless): failure injection into a {@link HubRegistry} through its package-private test seams, for
 * tests of this package and (via {@code EngineFaults}) of other modules. Ships in the engine test-jar only.
 */
public final class HubFaults {
  private HubFaults() {}

  /**
   * Every later encode of a snapshot chunk with index {@code >= fromChunk} throws (an encoder "panic" ⇒ INTERNAL
   * and a fence); lower chunks are encoded for real.
   */
  public static void panicSnapshotEncoder(HubRegistry registry, int fromChunk) {
    registry.snapshotEncoderForTests((format, dcId, sequence, words, chunkIndex) -> {
      if (chunkIndex < fromChunk) {
        return SnapshotChunkEncoder.CBI1.encode(format, dcId, sequence, words, chunkIndex);
      }
      throw new IllegalStateException("injected snapshot encoder panic at chunk " + chunkIndex);
    });
  }

  /** Every later snapshot chunk encode is cancelled (⇒ PUBLICATION_UNAVAILABLE, no fence). */
  public static void cancelSnapshotEncoder(HubRegistry registry) {
    registry.snapshotEncoderForTests((format, dcId, sequence, words, chunkIndex) -> {
      throw new CancellationException("injected snapshot encoder cancellation");
    });
  }

  /** Back to the real CBI1 encoder. */
  public static void restoreSnapshotEncoder(HubRegistry registry) {
    registry.snapshotEncoderForTests(SnapshotChunkEncoder.CBI1);
  }

  /**
   * Offers the live hub of {@code pool} a delta on its current lease whose base is not the mirror's sequence (a
   * sequence gap ⇒ INVALID_PUBLICATION and a fence). Returns false if the pool has no initialized hub.
   */
  public static boolean injectSequenceGap(KvPoolId pool, HubRegistry registry) {
    HubSlot slot = registry.slotForTests(pool);
    if (slot == null) {
      return false;
    }
    long lease = slot.lease();
    if (lease == 0) {
      return false;
    }
    slot.offer(delta(lease, -3L, new int[] {0}, new long[] {1L}));
    return true;
  }

  /**
   * A {@link CkfDelta} {@code base → base + 1} built outside the producer (its constructor is package-private; the
   * producer never emits what these tests need, e.g. more than {@link CkfDelta#MAX_IMAGES} images).
   */
  static CkfDelta delta(long lease, long base, int[] buckets, long[] words) {
    try {
      Constructor<CkfDelta> c = CkfDelta.class.getDeclaredConstructor(long.class, long.class, long.class,
          int[].class, long[].class);
      c.setAccessible(true);
      return c.newInstance(lease, base, base + 1, buckets, words);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("cannot build a CkfDelta", e);
    }
  }
}
