package dev.kvrelay.eventplane.zmq;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/** Thread-safe (adders): the counters of one plane, incremented by its subscriptions' receive threads. */
final class ZmqCounters {
  final LongAdder received = new LongAdder();
  final LongAdder delivered = new LongAdder();
  final LongAdder newPublishers = new LongAdder();
  final LongAdder sequenceGaps = new LongAdder();
  final LongAdder missedMessages = new LongAdder();
  final LongAdder sequenceRegressions = new LongAdder();
  final LongAdder publisherEvictions = new LongAdder();
  final LongAdder listenerFailures = new LongAdder();
  final LongAdder disconnects = new LongAdder();
  final LongAdder reconnects = new LongAdder();
  final LongAdder stuckReceivers = new LongAdder();
  private final Map<ZmqDrop, LongAdder> dropped = new EnumMap<>(ZmqDrop.class);

  ZmqCounters() {
    for (ZmqDrop d : ZmqDrop.values()) {
      dropped.put(d, new LongAdder());
    }
  }

  void drop(ZmqDrop reason) {
    Objects.requireNonNull(dropped.get(reason), "every reason has a counter").increment();
  }

  ZmqStats snapshot() {
    Map<ZmqDrop, Long> d = new EnumMap<>(ZmqDrop.class);
    for (Map.Entry<ZmqDrop, LongAdder> e : dropped.entrySet()) {
      d.put(e.getKey(), e.getValue().sum());
    }
    return new ZmqStats(received.sum(), delivered.sum(), d, newPublishers.sum(), sequenceGaps.sum(),
        missedMessages.sum(), sequenceRegressions.sum(), publisherEvictions.sum(), listenerFailures.sum(), disconnects.sum(),
        reconnects.sum(), stuckReceivers.sum());
  }
}
