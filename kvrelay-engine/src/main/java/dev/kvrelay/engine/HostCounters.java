package dev.kvrelay.engine;


import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Thread-safe (every counter is a {@link LongAdder}): the relay host's counters, written on the control task, the
 * pool actors' threads and the event plane's delivery threads, read by {@code RelayEngine.stats()}.
 */
final class HostCounters {
  final LongAdder discoveryErrors = new LongAdder();
  final LongAdder discoveryDecodeErrors = new LongAdder();
  final LongAdder reconciles = new LongAdder();
  final LongAdder poolStarts = new LongAdder();
  final LongAdder poolStartFailures = new LongAdder();
  final LongAdder gracefulRetirements = new LongAdder();
  final LongAdder fencedRetirements = new LongAdder();
  final LongAdder sourceFaults = new LongAdder();
  final LongAdder rejectedSources = new LongAdder();
  final LongAdder hubFaults = new LongAdder();
  final LongAdder eventDecodeErrors = new LongAdder();
  final LongAdder loadObservations = new LongAdder();
  final LongAdder loadRejected = new LongAdder();
  final LongAdder unexpectedMessages = new LongAdder();
  final LongAdder channelErrors = new LongAdder();
  final LongAdder faultQueueOverflows = new LongAdder();
  /** Load publisher errors: the fatal one, or one swallowed because the engine was already closing. */
  final LongAdder loadPublishErrors = new LongAdder();
  /** Event-plane faults of every subscription (kv-events and kv_metrics), by kind; written on delivery threads. */
  private final EnumMap<EventPlaneFaultKind, LongAdder> planeFaults = new EnumMap<>(EventPlaneFaultKind.class);

  HostCounters() {
    for (EventPlaneFaultKind k : EventPlaneFaultKind.values()) {
      planeFaults.put(k, new LongAdder());
    }
  }

  /** Counts one event-plane fault of {@code kind}. */
  void planeFault(EventPlaneFaultKind kind) {
    Objects.requireNonNull(planeFaults.get(kind), "the constructor adds every kind").increment();
  }

  /** The fault counters by kind (engine stats). */
  Map<EventPlaneFaultKind, Long> planeFaultCounts() {
    EnumMap<EventPlaneFaultKind, Long> out = new EnumMap<>(EventPlaneFaultKind.class);
    planeFaults.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
