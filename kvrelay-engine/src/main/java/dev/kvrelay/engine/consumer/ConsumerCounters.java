package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayErrorReason;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Thread-safe (one writer, the consumer task; read from any thread): the counters of one {@link RelayConsumer},
 * snapshotted by {@link RelayConsumer#stats()}.
 *
 * <p>Only the consumer task increments, so each increment is a plain read plus an ordered write ({@code lazySet});
 * readers see each counter's latest value without a lock.
 */
@SuppressWarnings("EnumOrdinal") // one atomic cell per constant, by ordinal: lock- and allocation-free counting
final class ConsumerCounters {
  private final AtomicLong subscriptions = new AtomicLong();
  private final AtomicLong resubscriptions = new AtomicLong();
  private final AtomicLong framesApplied = new AtomicLong();
  private final AtomicLongArray invalidations = new AtomicLongArray(ReplicaTermination.values().length);
  private final AtomicLongArray poolStreamErrors = new AtomicLongArray(RelayErrorReason.values().length);
  private final AtomicLongArray catalogRejections = new AtomicLongArray(CatalogError.values().length);
  private final AtomicLong watchErrors = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong sourcesStopped = new AtomicLong();
  private final AtomicLong quarantinedDescriptors = new AtomicLong();
  private final AtomicLong refusedLanes = new AtomicLong();
  private final AtomicLong staleCallbacks = new AtomicLong();
  private final AtomicLong drainFailures = new AtomicLong();

  private static void increment(AtomicLong counter) {
    counter.lazySet(counter.get() + 1);
  }

  private static void increment(AtomicLongArray counters, int index) {
    counters.lazySet(index, counters.get(index) + 1);
  }

  void subscribed() {
    increment(subscriptions);
  }

  void resubscribed() {
    increment(resubscriptions);
  }

  void frameApplied() {
    increment(framesApplied);
  }

  void invalidated(ReplicaTermination termination) {
    increment(invalidations, termination.ordinal());
  }

  void poolStreamError(RelayErrorReason reason) {
    increment(poolStreamErrors, reason.ordinal());
  }

  void catalogRejected(CatalogError error) {
    increment(catalogRejections, error.ordinal());
  }

  void watchError() {
    increment(watchErrors);
  }

  void reconnected() {
    increment(reconnects);
  }

  void sourceStopped() {
    increment(sourcesStopped);
  }

  void quarantinedDescriptor() {
    increment(quarantinedDescriptors);
  }

  void refusedLane() {
    increment(refusedLanes);
  }

  void staleCallback() {
    increment(staleCallbacks);
  }

  void drainFailed() {
    increment(drainFailures);
  }

  /** The counters now. */
  ConsumerStats snapshot() {
    return new ConsumerStats(subscriptions.get(), resubscriptions.get(), framesApplied.get(),
        toMap(ReplicaTermination.values(), invalidations), toMap(RelayErrorReason.values(), poolStreamErrors),
        toMap(CatalogError.values(), catalogRejections), watchErrors.get(), reconnects.get(), sourcesStopped.get(),
        quarantinedDescriptors.get(), refusedLanes.get(), staleCallbacks.get(), drainFailures.get());
  }

  private static <E extends Enum<E>> Map<E, Long> toMap(E[] values, AtomicLongArray counts) {
    Map<E, Long> m = new EnumMap<>(values[0].getDeclaringClass());
    for (E v : values) {
      long n = counts.get(v.ordinal());
      if (n != 0) {
        m.put(v, n);
      }
    }
    return m;
  }
}
