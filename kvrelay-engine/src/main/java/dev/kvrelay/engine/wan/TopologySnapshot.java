package dev.kvrelay.engine.wan;

import java.util.List;

/**
 * Immutable and thread-safe: one published topology (wire {@code ServingReadinessUpdate} content).
 *
 * @param revision starts at 1 and advances only when {@code entries} change (unsigned, saturating)
 * @param entries sorted by {@code (namespace, canonical model)}
 */
public record TopologySnapshot(long revision, List<TopologyEntry> entries) {
  /** Copies the entries. */
  public TopologySnapshot {
    if (revision == 0) {
      throw new IllegalArgumentException("topology revision starts at 1");
    }
    entries = List.copyOf(entries);
  }
}
