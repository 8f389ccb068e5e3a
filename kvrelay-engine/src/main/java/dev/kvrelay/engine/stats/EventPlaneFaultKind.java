package dev.kvrelay.engine.stats;

import dev.kvrelay.spi.eventplane.EventPlaneFault;

/**
 * Immutable and thread-safe: the kind of one event-plane fault the engine received through {@code
 * EventListener.onFault} (counted in {@link RecoveryStats#planeFaults()} per pool and in the engine's stats).
 */
public enum EventPlaneFaultKind {
  /** The transport lost its connection; the pool's sources become suspect. */
  DISCONNECTED,
  /** The transport is connected again; every source of the subscription recovers. */
  RECONNECTED,
  /** The transport discarded messages of unknown publishers; every source of the subscription recovers. */
  MESSAGES_DROPPED,
  /** The first message of a publisher id on the subscription. */
  NEW_PUBLISHER,
  /** A publisher's sequence skipped ahead; its source recovers incrementally. */
  SEQUENCE_GAP,
  /** A publisher's sequence went back; its source restores in full. */
  SEQUENCE_REGRESSION;

  /** The kind of {@code fault}. */
  public static EventPlaneFaultKind of(EventPlaneFault fault) {
    if (fault instanceof EventPlaneFault.Disconnected) {
      return DISCONNECTED;
    } else if (fault instanceof EventPlaneFault.Reconnected) {
      return RECONNECTED;
    } else if (fault instanceof EventPlaneFault.MessagesDropped) {
      return MESSAGES_DROPPED;
    } else if (fault instanceof EventPlaneFault.NewPublisher) {
      return NEW_PUBLISHER;
    } else if (fault instanceof EventPlaneFault.SequenceGap) {
      return SEQUENCE_GAP;
    }
    return SEQUENCE_REGRESSION;
  }
}
