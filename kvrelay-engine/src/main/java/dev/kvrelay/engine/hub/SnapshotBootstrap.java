package dev.kvrelay.engine.hub;

import dev.kvrelay.ckf.cbi1.Cbi1;
import org.jspecify.annotations.Nullable;

/**
 * Guarded by its {@link PoolStream}'s lock (not thread-safe on its own; every method except
 * {@link #pendingChunksView()} is called with that lock held): the snapshot bootstrap state of one pool stream,
 * namely the snapshot copy taken at open, the next SNAPSHOT_CHUNK to encode, the encoding-permit state and the
 * progress deadline.
 *
 * <p>The chunks are encoded lazily by the consumer (wan-grpc.md §9 C40): this type only says which chunk is next
 * and when the last was taken; it never encodes. The pending-chunk count is mirrored in a volatile view, written
 * with the lock held and read by {@link PoolStream#lagStats()} without it.
 */
final class SnapshotBootstrap {
  /** Permit state: asked for, not yet granted. */
  static final int WAITING = 0;
  /** Permit state: granted, held until the last chunk is taken or the stream ends. */
  static final int HELD = 1;
  /** Permit state: neither held nor asked for any more. */
  static final int NONE = 2;

  private final int chunkCount;

  private long @Nullable [] copy;
  private int nextChunk;
  private boolean done;
  private int permitState = WAITING;
  private long progressDeadline;

  private volatile int pendingChunksView;

  /** The bootstrap of {@code copy}: {@code ceil(B / 524 288)} chunks, the permit asked for. */
  SnapshotBootstrap(long[] copy) {
    this.copy = copy;
    this.chunkCount = Cbi1.chunkCount(copy.length);
    this.pendingChunksView = chunkCount;
  }

  /** True once the last chunk was taken. */
  boolean done() {
    return done;
  }

  int permitState() {
    return permitState;
  }

  boolean holdsPermit() {
    return permitState == HELD;
  }

  /** True if the permit is still asked for (not granted, not given up). */
  boolean waitingForPermit() {
    return permitState == WAITING;
  }

  /** The permit arrived: held from now on, the progress deadline set to {@code deadline}. */
  void grant(long deadline) {
    permitState = HELD;
    progressDeadline = deadline;
  }

  /** The copy to encode the next chunk from, or null if it may not be encoded now (no permit, or released). */
  long @Nullable [] encodableCopy() {
    return permitState == HELD ? copy : null;
  }

  int nextChunk() {
    return nextChunk;
  }

  long progressDeadline() {
    return progressDeadline;
  }

  /**
   * The next chunk was taken; the progress deadline moves to {@code deadline}. True if it was the last (the
   * bootstrap is then done, the copy dropped and the permit state NONE: the caller unpins and releases).
   */
  boolean chunkTaken(long deadline) {
    nextChunk++;
    pendingChunksView = chunkCount - nextChunk;
    progressDeadline = deadline;
    if (nextChunk != chunkCount) {
      return false;
    }
    done = true;
    copy = null;
    permitState = NONE;
    return true;
  }

  /**
   * Drops the copy and the permit (the stream ended); returns the old permit state. The hub's mirror is unpinned
   * if a copy was still held.
   */
  int release(HubSlot hub) {
    if (copy != null) {
      copy = null;
      hub.unpin();
    }
    int p = permitState;
    permitState = NONE;
    return p;
  }

  /** The chunks not yet taken, read without the lock. */
  int pendingChunksView() {
    return pendingChunksView;
  }
}
