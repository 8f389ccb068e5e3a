package dev.kvrelay.engine.hub;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (slot map and init permits guarded by the registry's monitor; lock order registry → slot →
 * stream): the publication hubs of all pool generations (wan-grpc.md §2.4 steps 11–15, §3.2, §3.3). It admits
 * pool subscribers, initializes hubs lazily under the initialized-hub cap (reclaiming one idle hub when the
 * cap is reached), and hands out {@link RelayStream}s of {@link PoolFrame}s.
 */
public final class HubRegistry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HubRegistry.class);

  private final HubSettings settings;
  private final RelayIdentity relay;
  private final ActorScheduler timers;
  private final LongSupplier nanoTime;
  private final LongSupplier epochMicros;
  private final HubFaultListener faults;
  private final HubCounters counters = new HubCounters();
  private final EncodingPermits permits;
  private final AtomicLong leases = new AtomicLong();
  private volatile SnapshotChunkEncoder snapshotEncoder = SnapshotChunkEncoder.CBI1;

  // guarded by this
  private final Map<KvPoolId, HubSlot> slots = new HashMap<>();
  private int freeInitPermits;
  private boolean closed;

  /**
   * A registry.
   *
   * @param settings the hub knobs
   * @param relay this relay's identity (every frame's envelope)
   * @param timers where heartbeat and snapshot-progress timers run
   * @param nanoTime monotonic clock in ns (heartbeat and progress deadlines)
   * @param epochMicros wall clock in µs since the epoch ({@code send_ts_us})
   * @param faults told about terminal hub failures (the runtime fences the generation)
   */
  public HubRegistry(HubSettings settings, RelayIdentity relay, ActorScheduler timers, LongSupplier nanoTime,
      LongSupplier epochMicros, HubFaultListener faults) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.relay = Objects.requireNonNull(relay, "relay");
    this.timers = Objects.requireNonNull(timers, "timers");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.epochMicros = Objects.requireNonNull(epochMicros, "epochMicros");
    this.faults = Objects.requireNonNull(faults, "faults");
    this.permits = new EncodingPermits(settings.encodingConcurrency());
    this.freeInitPermits = settings.maxInitializedHubs();
  }

  /**
   * Registers one pool generation and returns its slot (the {@code PublicationListener} for
   * {@code PoolActor.start}). A slot still registered for the same pool is retired first. After
   * {@link #close()} the returned slot is already retired.
   */
  public HubSlot attach(KvPoolId pool, ProducerIdentity producer, CkfFormat format, HubSource source) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(source, "source");
    HubSlot slot = new HubSlot(this, pool, producer, format, source);
    HubSlot old;
    boolean isClosed;
    synchronized (this) {
      isClosed = closed;
      old = isClosed ? null : slots.put(pool, slot);
    }
    if (old != null) {
      old.retire();
    }
    if (isClosed) {
      slot.retire();
    }
    return slot;
  }

  /**
   * Steps 11–15: completes with an open stream, or exceptionally with a {@link RelayException}
   * (POOL_NOT_FOUND, PRODUCER_CHANGED, RESOURCE_LIMIT, PUBLICATION_UNAVAILABLE, INVALID_PUBLICATION). Never
   * blocks: the lazy hub init completes the future later, on the thread that delivers the barrier snapshot.
   */
  public CompletableFuture<RelayStream<PoolFrame>> subscribe(KvPoolId pool, ProducerIdentity expected,
      String subscriberId) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(subscriberId, "subscriberId");
    HubSlot slot;
    HubSlot victim = null;
    long victimLease = 0;
    long initLease = 0;
    CompletableFuture<Void> ready;
    synchronized (this) {
      if (closed) {
        return refused(RelayErrorReason.PUBLICATION_UNAVAILABLE, "relay is shutting down");
      }
      slot = slots.get(pool);
      if (slot == null) {
        return refused(RelayErrorReason.POOL_NOT_FOUND, "pool " + pool + " is not active");
      }
      if (!slot.producer().equals(expected)) {
        return refused(RelayErrorReason.PRODUCER_CHANGED, "pool " + pool + " is served by " + slot.producer());
      }
      HubSlot.Admission admission = slot.beginAdmissionLocked();
      switch (admission) {
        case UNAVAILABLE -> {
          return refused(RelayErrorReason.PUBLICATION_UNAVAILABLE, "hub of " + pool + " is unavailable");
        }
        case READY -> ready = CompletableFuture.completedFuture(null);
        case WAIT -> {
          CompletableFuture<Void> f = slot.initFuture();
          ready = f != null ? f : CompletableFuture.completedFuture(null);
        }
        default -> {
          if (freeInitPermits > 0) {
            freeInitPermits--;
          } else {
            for (HubSlot candidate : slots.values()) {
              if (candidate != slot) {
                long l = candidate.evictIfIdleLocked();
                if (l != 0) {
                  victim = candidate;
                  victimLease = l;
                  break;
                }
              }
            }
            if (victim == null) {
              slot.abandonAdmission();
              counters.refusedInitializedHubLimit.increment();
              return refused(RelayErrorReason.RESOURCE_LIMIT,
                  "Relay initialized pool hub limit " + settings.maxInitializedHubs() + " reached");
            }
          }
          initLease = leases.incrementAndGet();
          ready = slot.startInitLocked(initLease);
        }
      }
    }
    if (victim != null) {
      counters.evictions.increment();
      victim.source().retireLease(victimLease);
    }
    if (initLease != 0) {
      slot.subscribeSource(initLease);
    }
    HubSlot admitted = slot;
    // A refusal is thrown wrapped in a CompletionException: the future holds it exactly as a composed failed
    // future would (a non-CompletionException failure is stored wrapped in one).
    return ready.handle((v, e) -> {
      if (e != null) {
        admitted.abandonAdmission();
        RelayException re = relayException(e);
        countRefusal(re.reason());
        throw new CompletionException(re);
      }
      try {
        return admit(admitted, expected, subscriberId);
      } catch (RelayException re) {
        throw new CompletionException(re);
      }
    });
  }

  /** Step 13–15 after init: re-check the registry entry, then join the hub. */
  private RelayStream<PoolFrame> admit(HubSlot slot, ProducerIdentity expected, String subscriberId)
      throws RelayException {
    synchronized (this) {
      HubSlot current = slots.get(slot.pool());
      RelayException refusal = null;
      if (current == null) {
        refusal = new RelayException(RelayErrorReason.POOL_NOT_FOUND, "pool " + slot.pool() + " went away");
      } else if (!current.producer().equals(expected)) {
        refusal = new RelayException(RelayErrorReason.PRODUCER_CHANGED,
            "pool " + slot.pool() + " is now served by " + current.producer());
      } else if (current != slot) {
        refusal = new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE,
            "hub slot of " + slot.pool() + " was replaced");
      }
      if (refusal != null) {
        slot.abandonAdmission();
        countRefusal(refusal.reason());
        throw refusal;
      }
    }
    return slot.open(subscriberId);
  }

  private static RelayException relayException(Throwable e) {
    Throwable t = e;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof RelayException re ? re
        : new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "hub init failed: " + t);
  }

  private CompletableFuture<RelayStream<PoolFrame>> refused(RelayErrorReason reason, String message) {
    countRefusal(reason);
    return CompletableFuture.failedFuture(new RelayException(reason, message));
  }

  private void countRefusal(RelayErrorReason reason) {
    switch (reason) {
      case POOL_NOT_FOUND -> counters.refusedPoolNotFound.increment();
      case PRODUCER_CHANGED -> counters.refusedProducerChanged.increment();
      case RESOURCE_LIMIT -> counters.refusedResourceLimit.increment();
      default -> counters.refusedUnavailable.increment();
    }
  }

  /** The current counters. */
  public RelayEngineStats.Hubs stats() {
    int initialized;
    int requested = 0;
    int ready = 0;
    int idle = 0;
    List<RelayEngineStats.SubscriberLag> lag = new ArrayList<>();
    synchronized (this) {
      initialized = settings.maxInitializedHubs() - freeInitPermits;
      // Lock order registry -> slot, as in subscribe (beginAdmissionLocked).
      for (HubSlot slot : slots.values()) {
        HubSlot.Phase phase = slot.phase();
        if (phase == HubSlot.Phase.INITIALIZING || phase == HubSlot.Phase.READY) {
          requested++;
        }
        slot.lagStats(lag);
        if (phase == HubSlot.Phase.READY) {
          ready++;
          if (slot.subscriberCount() == 0) {
            idle++;
          }
        }
      }
    }
    lag.sort(Comparator.comparing(RelayEngineStats.SubscriberLag::pool)
        .thenComparing(RelayEngineStats.SubscriberLag::subscriberId));
    return counters.snapshot(initialized, requested, ready, idle, lag);
  }

  /** Retires every slot: all streams end PUBLICATION_UNAVAILABLE, waiters fail PUBLICATION_UNAVAILABLE. */
  @Override
  public void close() {
    List<HubSlot> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(slots.values());
    }
    for (HubSlot s : all) {
      s.retire();
    }
  }

  // ------------------------------------------------------------------ package-private plumbing

  synchronized void removeSlot(HubSlot slot) {
    slots.remove(slot.pool(), slot);
  }

  synchronized void releaseInitPermit() {
    freeInitPermits++;
  }

  long nextLease() {
    return leases.incrementAndGet();
  }

  void reportFault(HubSlot slot, RelayErrorReason reason, String message) {
    counters.faults.increment();
    try {
      faults.onHubFault(slot.pool(), slot.producer(), reason, message);
    } catch (RuntimeException e) {
      LOG.warn("hub fault listener failed", e);
    }
  }

  HubCounters counters() {
    return counters;
  }

  HubSettings settings() {
    return settings;
  }

  EncodingPermits permits() {
    return permits;
  }

  SnapshotChunkEncoder snapshotEncoder() {
    return snapshotEncoder;
  }

  /**
   * <b>Test seam</b> (package-private; reached from other modules only through the engine test sources): replaces
   * the snapshot-chunk encoder every stream of this registry uses from its next chunk on. Production code never
   * calls it; unused, the streams encode with {@link SnapshotChunkEncoder#CBI1}.
   */
  void snapshotEncoderForTests(SnapshotChunkEncoder encoder) {
    snapshotEncoder = Objects.requireNonNull(encoder, "encoder");
  }

  /**
   * <b>Test seam</b> (package-private, read-only): the slot currently registered for {@code pool}, or null, so
   * tests can inject publications into a live hub.
   */
  synchronized @Nullable HubSlot slotForTests(KvPoolId pool) {
    return slots.get(pool);
  }

  ActorScheduler timers() {
    return timers;
  }

  RelayIdentity relay() {
    return relay;
  }

  long nanoTime() {
    return nanoTime.getAsLong();
  }

  long epochMicros() {
    return epochMicros.getAsLong();
  }

  synchronized int freeInitPermits() {
    return freeInitPermits;
  }
}
