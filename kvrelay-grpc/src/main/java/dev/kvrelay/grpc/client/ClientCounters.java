package dev.kvrelay.grpc.client;

import java.util.concurrent.atomic.AtomicLong;

/** Thread-safe (atomic counters, any thread): the live counters behind {@link ClientStats}. */
final class ClientCounters {
  final AtomicLong streamsOpened = new AtomicLong();
  final AtomicLong rejectedMessages = new AtomicLong();
  final AtomicLong excludedPoolLoadEntries = new AtomicLong();
  final AtomicLong excludedServingPools = new AtomicLong();
  final AtomicLong excludedServingModels = new AtomicLong();
  final AtomicLong callbackFailures = new AtomicLong();
  final AtomicLong quarantinedReadinessEntries = new AtomicLong();

  ClientStats snapshot() {
    return new ClientStats(streamsOpened.get(), rejectedMessages.get(), excludedPoolLoadEntries.get(),
        excludedServingPools.get(), excludedServingModels.get(), callbackFailures.get(),
        quarantinedReadinessEntries.get());
  }
}
