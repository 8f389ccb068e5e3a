package dev.kvrelay.engine.hub;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe for one consuming thread plus the pool actor's task and timer threads (guarded by one lock per
 * stream, never held while calling into the hub): one subscriber of a publication hub (wan-grpc.md §2.3–§3.3).
 *
 * <p>Bootstrap: once the encoding permit is granted, the snapshot copy taken at open is served as
 * {@code ceil(B / 524 288)} SNAPSHOT_CHUNK frames with base = seq = S, each encoded lazily when the consumer
 * polls (the consumer's thread pays); the permit is released when the last chunk is taken. Deltas published
 * meanwhile queue behind the chunks (bounded by frame count and by bytes, payload + 256 per frame). After the
 * bootstrap, a HEARTBEAT (base = seq = last sequence sent) becomes available after the heartbeat interval
 * without a taken frame. The bootstrap state ({@link SnapshotBootstrap}), the frame queue ({@link PoolFrameQueue}),
 * the heartbeat timing ({@link HeartbeatClock}) and the progress timer ({@link ProgressTimer}) are separate types
 * guarded by this stream's lock; the frames it builds (chunk encoding and its C40 outcomes, heartbeats, delivered
 * counters) are {@link StreamFrames}; this class keeps the lock, the termination bookkeeping and the consumer side.
 * A stream retired or closed while its chunk is being encoded ends PUBLICATION_UNAVAILABLE or quietly, never fenced.
 *
 * <p>Decision (pinned by {@code HubTest.decisionTerminationDiscardsQueuedFrames}): every hub-side termination
 * (lag, progress timeout, retirement, resnapshot, invalid publication) discards whatever was still queued at
 * that instant, so the very next poll throws; nothing is queued "before" the termination in the sense of
 * {@link RelayStream}. This matches upstream ("its next read yields SUBSCRIBER_LAGGED") and frees the memory
 * at once.
 */
final class PoolStream implements RelayStream<PoolFrame> {
  private static final int WAITING = SnapshotBootstrap.WAITING;
  private static final int HELD = SnapshotBootstrap.HELD;
  private static final int NONE = SnapshotBootstrap.NONE;

  private final HubSlot hub;
  private final HubRegistry registry;
  private final String subscriberId;
  private final long snapshotSeq;
  private final StreamFrames frames;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  // guarded by lock
  private final SnapshotBootstrap bootstrap;
  private int deferredPermit = NONE;
  private final PoolFrameQueue queue;
  private @Nullable RelayException terminal;
  private boolean closed;
  private final HeartbeatClock heartbeat;
  private long lastSeqSent;
  private final ProgressTimer progress;

  private volatile @Nullable Runnable callback;

  private final long connectedSinceMicros;

  PoolStream(HubSlot hub, HubRegistry registry, String subscriberId, long[] copy, long snapshotSeq) {
    this.hub = hub;
    this.registry = registry;
    this.subscriberId = subscriberId;
    this.bootstrap = new SnapshotBootstrap(copy);
    this.snapshotSeq = snapshotSeq;
    this.lastSeqSent = snapshotSeq;
    HubSettings s = registry.settings();
    this.heartbeat = new HeartbeatClock(TimeUnit.MILLISECONDS.toNanos(s.heartbeatIntervalMs()), registry.timers(),
        this::onHeartbeatTimer);
    this.progress = new ProgressTimer(TimeUnit.MILLISECONDS.toNanos(s.snapshotProgressTimeoutMs()), registry.timers(),
        this::onProgressTimer);
    this.frames = new StreamFrames(this, hub, registry, subscriberId, snapshotSeq);
    this.queue = new PoolFrameQueue(s.queueCapacity(), s.queueBytes(), snapshotSeq);
    this.connectedSinceMicros = registry.epochMicros();
  }

  /**
   * This subscriber's lag now, read without the stream lock from the volatile views of the queue and the bootstrap
   * (issue 12; each field exact, not all from one instant).
   */
  RelayEngineStats.SubscriberLag lagStats() {
    return queue.lagStats(subscriberId, hub.pool(), bootstrap.pendingChunksView(), connectedSinceMicros);
  }

  String subscriberId() {
    return subscriberId;
  }

  /** The wire sequence S of this stream's snapshot. */
  long snapshotSequence() {
    return snapshotSeq;
  }

  // ------------------------------------------------------------------ hub side

  /**
   * Asks for the encoding permit (after the stream joined the hub). A stream that ended meanwhile (retired,
   * closed) hands a permit it got at once straight on, and leaves the wait queue it just joined.
   */
  void requestPermit() {
    EncodingPermits permits = registry.permits();
    if (permits.acquireOrWait(this)) {
      if (!permitGranted()) {
        permits.release();
      }
    } else if (isFinished()) {
      permits.cancel(this);
    }
  }

  /** The encoding permit arrived; false if the stream no longer wants it (the caller passes it on). */
  boolean permitGranted() {
    lock.lock();
    try {
      if (!bootstrap.waitingForPermit() || terminal != null || closed) {
        return false;
      }
      bootstrap.grant(registry.nanoTime() + progress.timeoutNanos());
      progress.arm();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    notifyAvailable();
    return true;
  }

  /**
   * Called by the hub (under its lock) with a delta frame: queued (true), or the stream is marked lagged and
   * false is returned; the hub then removes it and calls {@link #completeTermination()} after its lock is
   * released.
   */
  boolean enqueue(PoolFrame frame) {
    lock.lock();
    try {
      if (terminal != null || closed) {
        return true;
      }
      long cost = PoolFrameQueue.cost(frame);
      String why = queue.overflow(cost);
      if (why != null) {
        deferredPermit = terminateLocked(new RelayException(RelayErrorReason.SUBSCRIBER_LAGGED,
            "subscriber " + subscriberId + " lagged: " + why));
        registry.counters().lagged.increment();
        return false;
      }
      queue.add(frame, cost);
      changed.signalAll();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Finishes a termination marked under the hub lock (permit hand-over, wake-up); no lock held. */
  void completeTermination() {
    int p;
    lock.lock();
    try {
      p = deferredPermit;
      deferredPermit = NONE;
    } finally {
      lock.unlock();
    }
    afterTermination(p);
  }

  /** Hub-side termination (retirement, resnapshot, fault), called without the hub lock; the hub removed the stream. */
  void terminate(RelayErrorReason reason, String message) {
    int releasedPermit;
    lock.lock();
    try {
      if (terminal != null || closed) {
        return;
      }
      releasedPermit = terminateLocked(new RelayException(reason, message));
    } finally {
      lock.unlock();
    }
    afterTermination(releasedPermit);
  }

  /** Sets the termination, drops the queue, the snapshot copy and the permit; returns the old permit state. */
  private int terminateLocked(RelayException error) {
    terminal = error;
    return releaseLocked();
  }

  private int releaseLocked() {
    queue.clear(lastSeqSent);
    int p = bootstrap.release(hub);
    changed.signalAll();
    return p;
  }

  private void afterTermination(int oldPermitState) {
    handOverPermit(oldPermitState);
    notifyAvailable();
  }

  /** Gives a held encoding permit back, or leaves the permit wait queue (no lock held). */
  private void handOverPermit(int oldPermitState) {
    if (oldPermitState == HELD) {
      registry.permits().release();
    } else if (oldPermitState == WAITING) {
      registry.permits().cancel(this);
    }
  }

  /** Runs the consumer's callback (never under the stream lock). */
  void notifyAvailable() {
    Runnable cb = callback;
    if (cb != null) {
      cb.run();
    }
  }

  // ------------------------------------------------------------------ consumer side

  @Override
  public @Nullable PoolFrame poll() throws RelayException {
    long[] src;
    int chunk;
    lock.lock();
    try {
      if (closed) {
        return null;
      }
      if (terminal != null) {
        throw new RelayException(terminal.reason(), String.valueOf(terminal.getMessage()));
      }
      if (bootstrap.done()) {
        return takeQueuedOrHeartbeatLocked();
      }
      src = bootstrap.encodableCopy();
      if (src == null) {
        return null;
      }
      chunk = bootstrap.nextChunk();
    } finally {
      lock.unlock();
    }
    PoolFrame frame = frames.chunk(src, chunk);
    if (frame == null) {
      return throwTerminal();
    }
    boolean last;
    lock.lock();
    try {
      if (closed) {
        return null;
      }
      if (terminal != null) {
        throw new RelayException(terminal.reason(), String.valueOf(terminal.getMessage()));
      }
      long now = registry.nanoTime();
      heartbeat.taken(now);
      lastSeqSent = snapshotSeq;
      last = bootstrap.chunkTaken(now + progress.timeoutNanos());
      if (last) {
        heartbeat.arm();
      }
    } finally {
      lock.unlock();
    }
    if (last) {
      hub.unpin();
      registry.permits().release();
    }
    frames.delivered(frame.payload().length);
    return frame;
  }

  /** Ends this stream on its own side with {@code error} (unless already ended) and leaves the hub. */
  void endOwn(RelayException error) {
    int p;
    lock.lock();
    try {
      if (closed || terminal != null) {
        return;
      }
      p = terminateLocked(error);
    } finally {
      lock.unlock();
    }
    hub.detach(this, error.reason(), String.valueOf(error.getMessage()));
    afterTermination(p);
  }

  /** Throws this stream's termination (null if it was closed meanwhile). */
  private @Nullable PoolFrame throwTerminal() throws RelayException {
    RelayException t;
    lock.lock();
    try {
      t = closed ? null : terminal;
    } finally {
      lock.unlock();
    }
    if (t != null) {
      throw new RelayException(t.reason(), String.valueOf(t.getMessage()));
    }
    return null;
  }

  private @Nullable PoolFrame takeQueuedOrHeartbeatLocked() {
    long now = registry.nanoTime();
    PoolFrame f = queue.take();
    if (f != null) {
      lastSeqSent = f.sequence();
      heartbeat.takenAndArm(now);
      frames.delivered(f.payload().length);
      return f;
    }
    if (heartbeat.due(now)) {
      heartbeat.takenAndArm(now);
      PoolFrame hb = frames.heartbeat(lastSeqSent);
      frames.delivered(0);
      return hb;
    }
    return null;
  }

  @Override
  public @Nullable PoolFrame poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    for (;;) {
      PoolFrame f = poll();
      if (f != null) {
        return f;
      }
      lock.lockInterruptibly();
      try {
        if (closed) {
          return null;
        }
        if (availableLocked()) {
          continue;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        changed.awaitNanos(left);
      } finally {
        lock.unlock();
      }
    }
  }

  private boolean availableLocked() {
    if (terminal != null) {
      return true;
    }
    if (!bootstrap.done()) {
      return bootstrap.holdsPermit();
    }
    return queue.size() > 0 || heartbeat.due(registry.nanoTime());
  }

  @Override
  public void onAvailable(Runnable cb) {
    callback = cb;
    boolean now;
    lock.lock();
    try {
      now = !closed && availableLocked();
    } finally {
      lock.unlock();
    }
    if (now) {
      cb.run();
    }
  }

  @Override
  public boolean isFinished() {
    lock.lock();
    try {
      return closed || terminal != null;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    int p;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      p = releaseLocked();
    } finally {
      lock.unlock();
    }
    handOverPermit(p);
    hub.detach(this, null, "closed by the subscriber");
  }

  // ------------------------------------------------------------------ timers

  private void onHeartbeatTimer() {
    boolean due;
    lock.lock();
    try {
      heartbeat.fired();
      if (closed || terminal != null || !bootstrap.done()) {
        return;
      }
      long left = heartbeat.untilDue(registry.nanoTime());
      due = left <= 0;
      if (due) {
        changed.signalAll();
      } else {
        heartbeat.arm(left);
      }
    } finally {
      lock.unlock();
    }
    if (due) {
      notifyAvailable();
    }
  }

  private void onProgressTimer() {
    int p;
    lock.lock();
    try {
      progress.fired();
      if (closed || terminal != null || bootstrap.done() || !bootstrap.holdsPermit()) {
        return;
      }
      long left = bootstrap.progressDeadline() - registry.nanoTime();
      if (left > 0) {
        progress.arm(left);
        return;
      }
      p = terminateLocked(new RelayException(RelayErrorReason.SNAPSHOT_PROGRESS_TIMEOUT,
          "subscriber " + subscriberId + " took no snapshot chunk for " + progress.timeoutNanos() / 1_000_000 + " ms"));
    } finally {
      lock.unlock();
    }
    registry.counters().progressTimeouts.increment();
    hub.detach(this, RelayErrorReason.SNAPSHOT_PROGRESS_TIMEOUT, "no snapshot chunk taken in time");
    afterTermination(p);
  }

  // ------------------------------------------------------------------ diagnostics for tests

  int queuedFrames() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  long queuedBytes() {
    lock.lock();
    try {
      return queue.bytes();
    } finally {
      lock.unlock();
    }
  }

  boolean holdsPermit() {
    lock.lock();
    try {
      return bootstrap.holdsPermit();
    } finally {
      lock.unlock();
    }
  }
}
