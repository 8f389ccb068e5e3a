package dev.kvrelay.discovery.kubernetes;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread-safe (atomics): the counters behind {@link KubernetesDiscoveryStats}, shared by the parts of one {@link
 * KubernetesDiscovery} (written on the state thread, the watch delivery threads and registration callers; read from
 * any thread).
 */
final class KubeCounters {
  final AtomicLong relists = new AtomicLong();
  final AtomicLong watchInterruptions = new AtomicLong();
  final AtomicLong goneRelists = new AtomicLong();
  final AtomicLong recomputes = new AtomicLong();
  final AtomicLong readyWithoutUid = new AtomicLong();
  final AtomicLong ownerUidMismatches = new AtomicLong();
  final AtomicLong invalidCrData = new AtomicLong();
  final AtomicLong malformedEntries = new AtomicLong();
  final AtomicLong hashMismatches = new AtomicLong();
  final AtomicLong duplicateKeys = new AtomicLong();
  final AtomicLong noEndpointSliceWarnings = new AtomicLong();
  final AtomicLong registrations = new AtomicLong();
  final AtomicLong relistFailures = new AtomicLong();
  final AtomicLong taskFailures = new AtomicLong();
  final AtomicLong listenerFailures = new AtomicLong();
  final AtomicLong watchCloseFailures = new AtomicLong();
  final AtomicLong cleanupFailures = new AtomicLong();

  /** A snapshot (each counter read once; the counters are not read atomically together). */
  KubernetesDiscoveryStats snapshot() {
    return new KubernetesDiscoveryStats(relists.get(), watchInterruptions.get(), goneRelists.get(),
        recomputes.get(), readyWithoutUid.get(), ownerUidMismatches.get(), invalidCrData.get(),
        malformedEntries.get(), hashMismatches.get(), duplicateKeys.get(), noEndpointSliceWarnings.get(),
        registrations.get(), relistFailures.get(), taskFailures.get(), listenerFailures.get(),
        watchCloseFailures.get(), cleanupFailures.get());
  }
}
