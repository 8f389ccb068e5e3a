package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Immutable and thread-safe: one KV event of one worker rank, the payload of a {@code kv-events}
 * message ({@code RouterEvent}, runtime-inputs.md §5.7).
 *
 * @param workerId {@code worker_id}: the worker's discovery instance id (unsigned 64-bit)
 * @param storageTier {@code storage_tier} ({@link StorageTier#DEVICE} when absent)
 * @param residencyDomain {@code residency_domain}
 * @param eventId {@code event.event_id}: the per-(worker, rank) counter used for recovery contiguity
 * @param dpRank {@code event.dp_rank} (unsigned 32-bit; 0 when absent)
 * @param data {@code event.data}
 */
public record RouterEvent(
    long workerId,
    StorageTier storageTier,
    ResidencyDomain residencyDomain,
    long eventId,
    int dpRank,
    KvEventData data) {

  /** Requires non-null parts. */
  public RouterEvent {
    Objects.requireNonNull(storageTier, "storageTier");
    Objects.requireNonNull(residencyDomain, "residencyDomain");
    Objects.requireNonNull(data, "data");
  }

  /**
   * True if the event targets primary GPU residency and so may change the CKF (ckf-cbi1.md §3.4): the
   * device tier, and the {@code worker} domain or no domain (legacy). False for other tiers, for the
   * {@code cache_owner} domain and for an unknown domain (which the engine counts as
   * {@code UnsupportedResidencyDomain}, see {@link #hasUnsupportedResidency()}).
   */
  public boolean targetsPrimary() {
    return storageTier == StorageTier.DEVICE && residencyDomain.isWorkerResidency();
  }

  /** True if the residency domain is an explicit nil or an unknown name. */
  public boolean hasUnsupportedResidency() {
    return residencyDomain.kind() == ResidencyDomain.Kind.UNKNOWN;
  }

  @Override
  public String toString() {
    return "RouterEvent[workerId=" + Long.toUnsignedString(workerId) + ", storageTier=" + storageTier
        + ", residencyDomain=" + residencyDomain + ", eventId=" + Long.toUnsignedString(eventId)
        + ", dpRank=" + Integer.toUnsignedString(dpRank) + ", data=" + data + "]";
  }
}
