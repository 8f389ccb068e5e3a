package dev.kvrelay.launcher.system;

import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.engine.stats.RelayEngineStats;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Thread-safe (stateless): the error and warning counters the status page shows and its {@link RecentErrors} ring
 * watches, named once here so the page's counters and the ring's entries are one computation from one
 * {@code engine.stats()} read.
 */
final class StatusCounters {
  /** The relay-wide scope's name in {@link RecentErrors}. */
  static final String RELAY = "relay";

  /** The relay-wide event-plane fault counters: each kind's name, in the kinds' declaration order. */
  private static final Map<EventPlaneFaultKind, String> RELAY_PLANE_FAULTS = inKindOrder(Map.of(
      EventPlaneFaultKind.DISCONNECTED, "eventPlaneDisconnects",
      EventPlaneFaultKind.RECONNECTED, "eventPlaneReconnects",
      EventPlaneFaultKind.MESSAGES_DROPPED, "eventPlaneMessagesDropped",
      EventPlaneFaultKind.SEQUENCE_GAP, "eventPlaneSequenceGaps",
      EventPlaneFaultKind.SEQUENCE_REGRESSION, "eventPlaneSequenceRegressions"));
  /** One pool's event-plane fault counters: each kind's name, in the kinds' declaration order. */
  private static final Map<EventPlaneFaultKind, String> POOL_PLANE_FAULTS = inKindOrder(Map.of(
      EventPlaneFaultKind.DISCONNECTED, "plane.disconnected",
      EventPlaneFaultKind.RECONNECTED, "plane.reconnected",
      EventPlaneFaultKind.MESSAGES_DROPPED, "plane.messagesDropped",
      EventPlaneFaultKind.SEQUENCE_REGRESSION, "plane.sequenceRegressions"));

  private StatusCounters() {}

  private static Map<EventPlaneFaultKind, String> inKindOrder(Map<EventPlaneFaultKind, String> names) {
    return Collections.unmodifiableMap(new EnumMap<>(names));
  }

  /** Puts {@code count} of every kind in {@code names} under its name, in the kinds' declaration order. */
  private static void planeFaults(Map<String, Long> into, Map<EventPlaneFaultKind, String> names,
      ToLongFunction<EventPlaneFaultKind> count) {
    names.forEach((kind, name) -> into.put(name, count.applyAsLong(kind)));
  }

  /** Relay-wide error counters, zeros included, in a fixed order. */
  static Map<String, Long> relay(RelayEngineStats s) {
    RelayEngineStats.Hubs h = s.hubs();
    Map<String, Long> errors = new LinkedHashMap<>();
    errors.put("poolStartFailures", s.poolStartFailures());
    errors.put("fencedRetirements", s.fencedRetirements());
    errors.put("sourceFaults", s.sourceFaults());
    errors.put("rejectedSources", s.rejectedSources());
    errors.put("hubFaults", s.hubFaults());
    errors.put("discoveryErrors", s.discoveryErrors());
    errors.put("discoveryDecodeErrors", s.discoveryDecodeErrors());
    errors.put("eventDecodeErrors", s.eventDecodeErrors());
    errors.put("loadRejected", s.loadRejected());
    errors.put("unexpectedMessages", s.unexpectedMessages());
    errors.put("channelErrors", s.channelErrors());
    errors.put("faultQueueOverflows", s.faultQueueOverflows());
    errors.put("loadPublishErrors", s.loadPublishErrors());
    errors.put("hubInitFailures", h.initFailures());
    errors.put("subscribersLagged", h.lagged());
    errors.put("snapshotProgressTimeouts", h.progressTimeouts());
    planeFaults(errors, RELAY_PLANE_FAULTS, s::eventPlaneFaults);
    return errors;
  }

  /** One pool generation's warning counters (drops, omissions, gaps, resets, plane faults), in a fixed order. */
  static Map<String, Long> pool(PoolStats p) {
    Map<String, Long> w = new LinkedHashMap<>();
    PoolStats.Actor a = p.actor();
    if (a != null) {
      w.put("capacityOmissions", a.capacityOmissions());
      w.put("mailboxFull", a.mailboxFull());
      w.put("permitsExhausted", a.permitsExhausted());
      w.put("parentNotFound", a.producer().parentNotFound());
      w.put("invalidBlockSequence", a.producer().invalidBlockSequence());
      w.put("ownershipOverflows", a.producer().ownershipOverflows());
      w.put("unknownRemovals", a.producer().unknownRemovals());
    }
    PoolStats.Recovery r = p.recovery();
    w.put("recovery.gaps", r.gaps());
    w.put("recovery.timeouts", r.timeouts());
    w.put("recovery.exhausted", r.exhausted());
    w.put("recovery.lifecycleResets", r.lifecycleResets());
    w.put("recovery.liveOnlyResets", r.liveOnlyResets());
    w.put("recovery.degradedResets", r.degradedResets());
    w.put("recovery.resyncs", r.resyncs());
    w.put("recovery.bufferOverflows", r.bufferOverflows());
    w.put("recovery.inboxOverflows", r.inboxOverflows());
    w.put("recovery.unknownPublisher", r.unknownPublisher());
    w.put("recovery.memberMismatch", r.memberMismatch());
    w.put("recovery.rejectedSourceEvents", r.rejectedSourceEvents());
    w.put("recovery.invalidTreeDumps", r.invalidTreeDumps());
    w.put("recovery.submitRejected", r.submitRejected());
    planeFaults(w, POOL_PLANE_FAULTS, r::planeFaults);
    PoolStats.Load l = p.load();
    w.put("load.gaps", l.gaps());
    w.put("load.unknownRank", l.unknownRank());
    w.put("load.discardedAboveCapacity", l.discardedAboveCapacity());
    w.put("load.invalidRefreshes", l.invalidRefreshes());
    w.put("load.schedulerListingFailures", l.schedulerListingFailures());
    return w;
  }

  /**
   * The {@link RecentErrors} scope of one pool generation: its serving endpoint and layout generation (u64), so a
   * new generation of the same endpoint starts from zero.
   */
  static String poolScope(PoolStats p) {
    return p.descriptor().servingEndpoint().dottedName() + " gen "
        + Long.toUnsignedString(p.descriptor().producer().layoutGeneration());
  }
}
