package dev.kvrelay.discovery.file;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread-safe (each counter is atomic): the counters of one {@link FileDiscovery}, written by its scanner, event
 * and delivery threads, read as one {@link FileDiscoveryStats} by {@link #snapshot()}.
 */
final class FileCounters {
  final AtomicLong liveRecords = new AtomicLong();
  final AtomicLong badFiles = new AtomicLong();
  final AtomicLong readErrors = new AtomicLong();
  final AtomicLong expired = new AtomicLong();
  final AtomicLong watchEvents = new AtomicLong();
  final AtomicLong overflows = new AtomicLong();
  final AtomicLong rescans = new AtomicLong();
  final AtomicLong listenerFailures = new AtomicLong();
  final AtomicLong watchFailures = new AtomicLong();
  final AtomicLong scannerFailures = new AtomicLong();

  /** The current values (each read on its own: not one atomic cut across counters). */
  FileDiscoveryStats snapshot() {
    return new FileDiscoveryStats(liveRecords.get(), badFiles.get(), readErrors.get(), expired.get(),
        watchEvents.get(), overflows.get(), rescans.get(), listenerFailures.get(), watchFailures.get(),
        scannerFailures.get());
  }
}
