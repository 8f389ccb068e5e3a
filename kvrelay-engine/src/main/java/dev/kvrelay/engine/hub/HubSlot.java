package dev.kvrelay.engine.hub;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.cbi1.Cbi1EncodeException;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.engine.actor.PublicationListener;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (state guarded by the slot's monitor, held only briefly per publication; callbacks, the source
 * and the fault listener are called without it): the publication hub of one pool generation (wan-grpc.md
 * §3.3). It is the {@link PublicationListener} the runtime passes to {@code PoolActor.start}: it keeps a mirror
 * of the published CKF (also while no one subscribes), encodes each delta once into one {@link PoolFrame}
 * shared by every subscriber, and serves new subscribers a snapshot of the mirror.
 *
 * <p>Wire sequences restart at 0 per actor lease (wan-grpc §2.5 "sequence restart", followed): the lease's
 * barrier snapshot at actor sequence {@code b0} is S = 0 on the wire and a delta {@code b → b+1} goes out as
 * {@code (b − b0, b + 1 − b0)}.
 *
 * <p>Phases: Vacant → Initializing → Ready → (idle eviction) Vacant; Failed (terminal fault); Retired.
 *
 * <p>This class is the slot's life cycle — lazy initialisation under an actor lease, admission, idle eviction,
 * terminal faults and retirement — and the lock; its other jobs are separate types guarded by the same monitor: the
 * mirror ({@link HubMirror}), the publications buffered while a lease's barrier snapshot is on its way
 * ({@link EarlyPublications}), the subscriber set with its connect, disconnect and lag log lines
 * ({@link HubSubscribers}), the lazy-initialisation bookkeeping: pending lease, init permit and waiters
 * ({@link SlotInit}) and the pending admissions ({@link SlotAdmissions}); the delta encoding is {@link DeltaFrames}.
 */
public final class HubSlot implements PublicationListener {
  /** Publications buffered while the lease's barrier snapshot is on its way (producer.md §3.1 broadcast). */
  static final int EARLY_CAPACITY = EarlyPublications.CAPACITY;
  private static final PoolStream[] NO_STREAMS = new PoolStream[0];

  /** Immutable: the slot's life-cycle phase (wan-grpc §3.3). */
  enum Phase { VACANT, INITIALIZING, READY, FAILED, RETIRED }

  private final HubRegistry registry;
  private final KvPoolId pool;
  private final ProducerIdentity producer;
  private final CkfFormat format;
  private final HubSource source;
  private final long dcId;
  private final AtomicInteger pins = new AtomicInteger();
  private final DeltaFrames deltaFrames;

  // guarded by this
  private Phase phase = Phase.VACANT;
  private long lease;
  private final HubMirror mirror = new HubMirror();
  private final HubSubscribers subs;
  private final SlotAdmissions admissions = new SlotAdmissions();
  private final SlotInit init = new SlotInit();
  private final EarlyPublications early = new EarlyPublications();
  private @Nullable Fault pendingFault;

  /** Immutable: a terminal fault marked under the monitor, reported once it is released. */
  private record Fault(RelayErrorReason reason, String message) {}

  HubSlot(HubRegistry registry, KvPoolId pool, ProducerIdentity producer, CkfFormat format, HubSource source) {
    this.registry = registry;
    this.pool = pool;
    this.producer = producer;
    this.format = format;
    this.source = source;
    this.dcId = pool.dcId().value();
    this.subs = new HubSubscribers(pool, registry.counters());
    this.deltaFrames = new DeltaFrames(registry, producer, format, dcId);
  }

  /** The pool. */
  public KvPoolId pool() {
    return pool;
  }

  /** The generation's identity. */
  public ProducerIdentity producer() {
    return producer;
  }

  CkfFormat format() {
    return format;
  }

  long dcId() {
    return dcId;
  }

  HubSource source() {
    return source;
  }

  /** Streams currently subscribed. */
  public synchronized int subscriberCount() {
    return subs.count();
  }

  /** Adds the lag of every stream subscribed now to {@code out} (no stream lock taken). */
  synchronized void lagStats(List<RelayEngineStats.SubscriberLag> out) {
    subs.lagStats(out);
  }

  /** True while the hub holds a mirror (Ready). */
  public synchronized boolean isInitialized() {
    return phase == Phase.READY;
  }

  synchronized Phase phase() {
    return phase;
  }

  /** The current actor lease (0 when none). */
  synchronized long lease() {
    return phase == Phase.READY ? lease : 0;
  }

  boolean pinned() {
    return pins.get() > 0;
  }

  void unpin() {
    pins.decrementAndGet();
  }

  // ------------------------------------------------------------------ publications (actor task)

  /**
   * From the pool actor's task only; never blocks. Applies a delta (or a re-basing snapshot) of the current
   * lease to the mirror and fans the encoded frame out; publications of another lease are ignored (counted).
   *
   * @return true unless the slot is retired or failed
   */
  @Override
  public boolean offer(CkfPublication publication) {
    PoolStream[] toNotify;
    Fault fault;
    synchronized (this) {
      if (phase == Phase.RETIRED || phase == Phase.FAILED) {
        return false;
      }
      long pl;
      if (publication instanceof CkfDelta d) {
        pl = d.lease();
      } else if (publication instanceof CkfSnapshot s) {
        pl = s.lease();
      } else {
        return true;
      }
      if (phase == Phase.INITIALIZING && pl == init.pendingLease()) {
        early.add(publication);
        return true;
      }
      if (phase != Phase.READY || pl != lease) {
        registry.counters().foreignPublications.increment();
        return true;
      }
      toNotify = applyLocked(publication);
      fault = pendingFault;
      pendingFault = null;
    }
    runDeferred();
    for (PoolStream s : toNotify) {
      s.notifyAvailable();
    }
    if (fault != null) {
      afterFault(fault.reason(), fault.message());
      return false;
    }
    return true;
  }

  /** Applies one publication of the current lease; returns the streams to notify. */
  private PoolStream[] applyLocked(CkfPublication publication) {
    if (!mirror.present()) {
      return NO_STREAMS;
    }
    if (publication instanceof CkfSnapshot s) {
      String misfit = mirror.rebase(s);
      if (misfit != null) {
        return failLocked(RelayErrorReason.INVALID_PUBLICATION, misfit);
      }
      return resnapshotLocked("hub re-based on an oversized publication");
    }
    CkfDelta d = (CkfDelta) publication;
    String misfit = mirror.apply(d);
    if (misfit != null) {
      return failLocked(RelayErrorReason.INVALID_PUBLICATION, misfit);
    }
    if (subs.isEmpty()) {
      registry.counters().idleDeltasApplied.increment();
      return NO_STREAMS;
    }
    int n = d.imageCount();
    if (n > CkfDelta.MAX_IMAGES) {
      return resnapshotLocked("delta of " + n + " images exceeds " + CkfDelta.MAX_IMAGES);
    }
    PoolFrame frame;
    try {
      frame = deltaFrames.encode(d, mirror.toWire(d.baseSequence()), n);
    } catch (Cbi1EncodeException e) {
      return failLocked(RelayErrorReason.INTERNAL, "delta encoding failed: " + e.getMessage());
    }
    return subs.fanOut(frame);
  }

  /** Ends every current stream PUBLICATION_UNAVAILABLE (the mirror stays); counted as a resnapshot. */
  private PoolStream[] resnapshotLocked(String why) {
    registry.counters().resnapshots.increment();
    return closeAllLocked(RelayErrorReason.PUBLICATION_UNAVAILABLE, why);
  }

  /** Removes every stream; they are terminated by {@link #runDeferred()} once the lock is released. */
  private PoolStream[] closeAllLocked(RelayErrorReason reason, String why) {
    subs.closeAll(reason, why);
    return NO_STREAMS;
  }

  /** Terminates the streams removed under the lock (never call with the lock held). */
  private void runDeferred() {
    for (;;) {
      HubSubscribers.Closing c;
      synchronized (this) {
        c = subs.pollClosing();
      }
      if (c == null) {
        return;
      }
      c.run();
    }
  }

  /** Terminal fault: streams end with {@code reason}, the mirror is dropped; the caller reports it. */
  private PoolStream[] failLocked(RelayErrorReason reason, String message) {
    phase = Phase.FAILED;
    pendingFault = new Fault(reason, message);
    mirror.clear();
    early.clear();
    return closeAllLocked(reason, message);
  }

  /** After a terminal fault (no lock held): release the init permit, fail waiters, report it. */
  private void afterFault(RelayErrorReason reason, String message) {
    runDeferred();
    boolean hadPermit;
    CompletableFuture<Void> waiters;
    synchronized (this) {
      hadPermit = init.takePermit();
      waiters = init.takeFuture();
    }
    SlotInit.settle(registry, hadPermit, waiters, "hub of " + pool + " failed: " + message);
    registry.reportFault(this, reason, message);
  }

  /** A stream's snapshot encoder failed: terminal fault INTERNAL (the generation is fenced). */
  void encoderFault(String message) {
    synchronized (this) {
      if (phase == Phase.RETIRED || phase == Phase.FAILED) {
        return;
      }
      failLocked(RelayErrorReason.INTERNAL, message);
      pendingFault = null;
    }
    afterFault(RelayErrorReason.INTERNAL, message);
  }

  // ------------------------------------------------------------------ lazy init (registry)

  /** Immutable: the admission outcome of {@link #beginAdmissionLocked()}. */
  enum Admission { READY, WAIT, NEEDS_INIT, UNAVAILABLE }

  /** Called with the registry lock held: counts a pending admission unless the slot is retired or failed. */
  synchronized Admission beginAdmissionLocked() {
    return admissions.begin(phase);
  }

  synchronized void abandonAdmission() {
    admissions.end();
  }

  /** With the registry lock held and the init permit taken: Vacant → Initializing under {@code newLease}. */
  synchronized CompletableFuture<Void> startInitLocked(long newLease) {
    phase = Phase.INITIALIZING;
    early.reset();
    return init.start(newLease);
  }

  synchronized @Nullable CompletableFuture<Void> initFuture() {
    return init.future();
  }

  /** Subscribes the actor under {@code newLease} (no lock held). */
  void subscribeSource(long newLease) {
    CompletableFuture<BarrierSnapshot> reply;
    try {
      reply = source.subscribe(newLease);
    } catch (RuntimeException e) {
      initCompleted(newLease, null, e);
      return;
    }
    // The dependent stage is not needed: initCompleted handles the outcome, failure included.
    CompletableFuture<?> unused = reply.whenComplete((b, e) -> initCompleted(newLease, b, e));
  }

  /** The barrier snapshot of {@code doneLease} arrived (or failed). */
  void initCompleted(long doneLease, @Nullable BarrierSnapshot barrier, @Nullable Throwable error) {
    CompletableFuture<Void> done = null;
    boolean releasePermit = false;
    long restartLease = 0;
    long retireStale = 0;
    Fault fault = null;
    synchronized (this) {
      if (phase != Phase.INITIALIZING || init.pendingLease() != doneLease) {
        if (error == null) {
          retireStale = doneLease; // retired or evicted meanwhile: give the lease back
        }
      } else if (error != null || barrier == null) {
        phase = Phase.VACANT;
        init.takePermit(); // released below in any case
        releasePermit = true;
        done = init.takeFuture();
        early.clear();
        registry.counters().initFailures.increment();
      } else {
        CkfSnapshot s = barrier.snapshot();
        if (s.lease() != doneLease || s.bucketCount() != format.bucketCount()) {
          failLocked(RelayErrorReason.INVALID_PUBLICATION, "barrier snapshot lease "
              + Long.toUnsignedString(s.lease()) + "/" + s.bucketCount() + " buckets, expected lease "
              + doneLease + "/" + format.bucketCount());
          fault = pendingFault;
          pendingFault = null;
        } else if (early.overflowed()) {
          registry.counters().resnapshots.increment();
          restartLease = registry.nextLease();
          init.restart(restartLease);
          early.reset();
        } else {
          mirror.install(s);
          lease = doneLease;
          phase = Phase.READY;
          CkfPublication p;
          while ((p = early.poll()) != null && phase == Phase.READY) {
            applyLocked(p);
          }
          early.clear();
          if (phase == Phase.FAILED) {
            fault = pendingFault;
            pendingFault = null;
          } else {
            done = init.takeFuture();
          }
        }
      }
    }
    runDeferred();
    if (retireStale != 0) {
      source.retireLease(retireStale);
    }
    if (restartLease != 0) {
      subscribeSource(restartLease);
      return;
    }
    if (releasePermit) {
      registry.releaseInitPermit();
    }
    if (fault != null) {
      afterFault(fault.reason(), fault.message());
      return;
    }
    SlotInit.finish(done, error != null || barrier == null ? RelayErrorReason.PUBLICATION_UNAVAILABLE : null,
        "pool actor subscribe failed for " + pool + ": " + (error == null ? "no snapshot" : error));
  }

  /**
   * With the registry lock held: evicts this hub if it is Ready and idle (0 subscribers, 0 pending admissions,
   * unpinned mirror). Returns the lease to retire at the actor, or 0 if not a victim.
   */
  synchronized long evictIfIdleLocked() {
    if (phase != Phase.READY || !subs.isEmpty() || !admissions.none() || pinned()) {
      return 0;
    }
    phase = Phase.VACANT;
    init.takePermit();
    mirror.clear();
    long l = lease;
    lease = 0;
    return l;
  }

  // ------------------------------------------------------------------ streams

  /** Step 14–15: joins a subscriber (always ends the pending admission). */
  PoolStream open(String subscriberId) throws RelayException {
    PoolStream stream;
    int subscribers;
    synchronized (this) {
      admissions.end();
      if (phase != Phase.READY || !mirror.present()) {
        registry.counters().refusedUnavailable.increment();
        throw new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "hub of " + pool + " is " + phase);
      }
      if (subs.count() >= registry.settings().maxSubscribersPerPool()) {
        registry.counters().refusedResourceLimit.increment();
        throw new RelayException(RelayErrorReason.RESOURCE_LIMIT, "Relay subscribers-per-pool limit "
            + registry.settings().maxSubscribersPerPool() + " reached for " + pool);
      }
      long[] copy = mirror.sharedCopy();
      pins.incrementAndGet();
      stream = new PoolStream(this, registry, subscriberId, copy, mirror.wireSequence());
      subs.add(stream);
      subscribers = subs.count();
    }
    subs.logConnected(stream, subscribers);
    stream.requestPermit();
    return stream;
  }

  /**
   * Removes a stream that ended on its own side: closed by the subscriber ({@code reason} null), a progress timeout
   * or a cancelled encoder; idempotent.
   */
  void detach(PoolStream stream, @Nullable RelayErrorReason reason, String why) {
    boolean removed;
    synchronized (this) {
      removed = subs.remove(stream);
    }
    if (removed) {
      subs.logDisconnected(stream, reason, why);
    }
  }

  // ------------------------------------------------------------------ retirement

  /**
   * Withdraw, fence or detach: every stream ends PUBLICATION_UNAVAILABLE, waiters fail PUBLICATION_UNAVAILABLE,
   * the init permit is released and the slot leaves the registry (a new attach for the pool may follow).
   * Idempotent.
   */
  public void retire() {
    registry.removeSlot(this);
    boolean hadPermit;
    long retireLease = 0;
    CompletableFuture<Void> waiters;
    synchronized (this) {
      if (phase == Phase.RETIRED) {
        return;
      }
      hadPermit = init.takePermit();
      if (phase == Phase.READY) {
        retireLease = lease;
      } else if (phase == Phase.INITIALIZING) {
        retireLease = init.pendingLease();
      }
      phase = Phase.RETIRED;
      closeAllLocked(RelayErrorReason.PUBLICATION_UNAVAILABLE, "generation of " + pool + " retired");
      mirror.clear();
      early.clear();
      waiters = init.takeFuture();
    }
    runDeferred();
    SlotInit.settle(registry, hadPermit, waiters, "generation of " + pool + " retired");
    if (retireLease != 0) {
      source.retireLease(retireLease);
    }
  }

  @Override
  public String toString() {
    return "HubSlot[" + pool + ", " + phase() + "]";
  }
}
