package dev.kvrelay.discovery.etcd;

import java.util.concurrent.atomic.LongAdder;

/** Thread-safe (adders): the counters behind {@link EtcdDiscoveryStats}, shared by a backend and its watches. */
final class EtcdCounters {
  final LongAdder eventsApplied = new LongAdder();
  final LongAdder decodeFailures = new LongAdder();
  final LongAdder streamInterruptions = new LongAdder();
  final LongAdder resyncs = new LongAdder();
  final LongAdder compactions = new LongAdder();
  final LongAdder leaseKeepAliveErrors = new LongAdder();
}
