package dev.kvrelay.engine.hub;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.cbi1.Cbi1;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import org.jspecify.annotations.Nullable;

/**
 * Guarded by its {@link PoolStream}'s lock (not thread-safe on its own; every method except the {@code *View}
 * reads is called with that lock held): the bounded delta queue of one pool stream, frames in a ring that grows
 * up to the frame capacity, bounded also by bytes (payload + {@link Cbi1#QUEUED_FRAME_OVERHEAD} per frame).
 *
 * <p>Lag views (issue 12): the queued frame and byte counts and the published and delivered wire sequences are
 * mirrored in volatile fields, written only with the stream lock held next to the guarded fields they mirror and
 * read by {@link PoolStream#lagStats()} without the lock; a volatile write per queued or taken frame, no lock and
 * no allocation on the publish path.
 */
final class PoolFrameQueue {
  private final int capacity;
  private final long maxBytes;

  private PoolFrame[] ring;
  private int head;
  private int size;
  private long bytes;

  private volatile int queuedView;
  private volatile long queuedBytesView;
  private volatile long publishedSeqView;
  private volatile long deliveredSeqView;

  /** A queue bounded by {@code capacity} frames and {@code maxBytes} bytes; both sequence views start at S. */
  PoolFrameQueue(int capacity, long maxBytes, long snapshotSeq) {
    this.capacity = capacity;
    this.maxBytes = maxBytes;
    this.ring = new PoolFrame[Math.min(capacity, 64)];
    this.publishedSeqView = snapshotSeq;
    this.deliveredSeqView = snapshotSeq;
  }

  /** The bytes {@code frame} counts against the byte bound while queued. */
  static long cost(PoolFrame frame) {
    return frame.payload().length + (long) Cbi1.QUEUED_FRAME_OVERHEAD;
  }

  /** Why a frame of {@code cost} bytes does not fit (the lag message's tail), or null if it fits. */
  @Nullable String overflow(long cost) {
    if (bytes + cost > maxBytes) {
      return "queued bytes " + bytes + " + " + cost + " exceed " + maxBytes;
    }
    if (size == capacity) {
      return "queue of " + capacity + " frames is full";
    }
    return null;
  }

  /** Appends a frame that fits ({@link #overflow} returned null for its {@code cost}). */
  void add(PoolFrame frame, long cost) {
    if (size == ring.length) {
      grow();
    }
    ring[(head + size) % ring.length] = frame;
    size++;
    bytes += cost;
    queuedView = size;
    queuedBytesView = bytes;
    publishedSeqView = frame.sequence();
  }

  /** Takes the oldest frame (null if empty); the delivered-sequence view moves to its sequence. */
  @Nullable PoolFrame take() {
    if (size == 0) {
      return null;
    }
    PoolFrame f = ring[head];
    ring[head] = null;
    head = (head + 1) % ring.length;
    size--;
    bytes -= cost(f);
    queuedView = size;
    queuedBytesView = bytes;
    deliveredSeqView = f.sequence();
    return f;
  }

  /** Drops every queued frame; the published-sequence view falls back to {@code lastSeqSent}. */
  void clear(long lastSeqSent) {
    for (int i = 0; i < size; i++) {
      ring[(head + i) % ring.length] = null;
    }
    size = 0;
    head = 0;
    bytes = 0;
    queuedView = 0;
    queuedBytesView = 0;
    publishedSeqView = lastSeqSent;
  }

  private void grow() {
    PoolFrame[] bigger = new PoolFrame[(int) Math.min(capacity, (long) ring.length * 2)];
    for (int i = 0; i < size; i++) {
      bigger[i] = ring[(head + i) % ring.length];
    }
    ring = bigger;
    head = 0;
  }

  int size() {
    return size;
  }

  long bytes() {
    return bytes;
  }

  // ------------------------------------------------------------------ lag views (no lock)

  int sizeView() {
    return queuedView;
  }

  long bytesView() {
    return queuedBytesView;
  }

  long publishedSeqView() {
    return publishedSeqView;
  }

  long deliveredSeqView() {
    return deliveredSeqView;
  }

  /** The lag of {@code subscriberId}'s stream of {@code pool} from these views (each exact, not one instant). */
  RelayEngineStats.SubscriberLag lagStats(String subscriberId, KvPoolId pool, int pendingChunks,
      long connectedSinceMicros) {
    long published = publishedSeqView;
    long delivered = deliveredSeqView;
    return new RelayEngineStats.SubscriberLag(subscriberId, "pool", pool, queuedView, queuedBytesView, published,
        delivered,
        published - delivered, pendingChunks, connectedSinceMicros);
  }
}
