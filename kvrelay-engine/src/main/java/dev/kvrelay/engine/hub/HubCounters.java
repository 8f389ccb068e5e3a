package dev.kvrelay.engine.hub;

import dev.kvrelay.engine.stats.RelayEngineStats;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/** Thread-safe: the registry's counters (lock-free adders, no allocation per increment). */
final class HubCounters {
  final LongAdder openStreams = new LongAdder();
  final LongAdder admitted = new LongAdder();
  final LongAdder refusedPoolNotFound = new LongAdder();
  final LongAdder refusedProducerChanged = new LongAdder();
  final LongAdder refusedResourceLimit = new LongAdder();
  /** The part of {@link #refusedResourceLimit} refused by the initialized-hub cap (the rest: per-pool cap). */
  final LongAdder refusedInitializedHubLimit = new LongAdder();
  final LongAdder refusedUnavailable = new LongAdder();
  final LongAdder lagged = new LongAdder();
  final LongAdder progressTimeouts = new LongAdder();
  final LongAdder evictions = new LongAdder();
  final LongAdder resnapshots = new LongAdder();
  final LongAdder streamsRetired = new LongAdder();
  final LongAdder deltasEncoded = new LongAdder();
  final LongAdder idleDeltasApplied = new LongAdder();
  final LongAdder foreignPublications = new LongAdder();
  final LongAdder framesDelivered = new LongAdder();
  final LongAdder bytesDelivered = new LongAdder();
  final LongAdder heartbeats = new LongAdder();
  final LongAdder faults = new LongAdder();
  final LongAdder initFailures = new LongAdder();
  final LongAdder encoderCancellations = new LongAdder();

  RelayEngineStats.Hubs snapshot(int initializedHubs, int requestedHubs, int readyHubs, int idleHubs,
      List<RelayEngineStats.SubscriberLag> subscribers) {
    return new RelayEngineStats.Hubs(initializedHubs, openStreams.sum(), admitted.sum(), refusedPoolNotFound.sum(),
        refusedProducerChanged.sum(), refusedResourceLimit.sum(), refusedUnavailable.sum(), lagged.sum(),
        progressTimeouts.sum(), evictions.sum(), resnapshots.sum(), streamsRetired.sum(), deltasEncoded.sum(),
        idleDeltasApplied.sum(), foreignPublications.sum(), framesDelivered.sum(), bytesDelivered.sum(),
        heartbeats.sum(), faults.sum(), initFailures.sum(), encoderCancellations.sum(), requestedHubs, readyHubs, idleHubs,
        refusedInitializedHubLimit.sum(), subscribers);
  }
}
