package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.ModelKey;
import dev.kvrelay.engine.wan.TopologyEntry;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Immutable and thread-safe: the published state of one {@code ReadinessView} (wan-grpc.md §5, §7.5).
 * A quarantined entry (unknown state or role, malformed, or its key listed twice) has no state at all: it
 * is never read as READY nor as any other state.
 *
 * @param revision the applied topology revision (unsigned), 0 before the first snapshot
 * @param receivedUs the local receive time (µs) of the last snapshot or heartbeat, 0 before the first
 * @param entries the usable entries by key
 * @param quarantined the quarantined keys with the reason
 */
public record ReadinessSnapshot(
    long revision, long receivedUs, Map<ModelKey, TopologyEntry> entries, Map<ModelKey, String> quarantined) {

  /** No snapshot yet. */
  public static final ReadinessSnapshot EMPTY = new ReadinessSnapshot(0, 0, Map.of(), Map.of());

  /** Copies the maps. */
  public ReadinessSnapshot {
    entries = Map.copyOf(entries);
    quarantined = Map.copyOf(quarantined);
  }

  /** True once a snapshot was applied. */
  public boolean hasRevision() {
    return revision != 0;
  }

  /** The usable entry of {@code (namespace, model)}, if any. */
  public Optional<TopologyEntry> entry(String namespace, String canonicalModelId) {
    return Optional.ofNullable(entries.get(new ModelKey(namespace, canonicalModelId)));
  }

  /** The state of {@code (namespace, model)}; empty when unlisted or quarantined (never inferred). */
  public Optional<ServingReadinessState> state(String namespace, String canonicalModelId) {
    return entry(namespace, canonicalModelId).map(TopologyEntry::state);
  }

  /** True only for a usable entry whose state is READY. */
  public boolean isReady(String namespace, String canonicalModelId) {
    return state(namespace, canonicalModelId).orElse(null) == ServingReadinessState.READY;
  }

  /** True if the entry of {@code (namespace, model)} was quarantined. */
  public boolean isQuarantined(String namespace, String canonicalModelId) {
    return quarantined.containsKey(new ModelKey(namespace, canonicalModelId));
  }

  /** The adapters of a usable entry (empty when unlisted or quarantined). */
  public List<AdapterReadiness> adapters(String namespace, String canonicalModelId) {
    return entry(namespace, canonicalModelId).map(TopologyEntry::adapters).orElse(List.of());
  }
}
