package dev.kvrelay.engine.consumer;

import java.util.List;

/** Immutable and thread-safe: the outcome of one catalog update. */
sealed interface CatalogResult {

  /**
   * Immutable: a new revision replaced the catalog.
   *
   * @param revision the applied revision (unsigned)
   * @param changes per-pool actions, in snapshot order then dropped pools in pool order; unchanged pools are absent
   */
  record Applied(long revision, List<PoolChange> changes) implements CatalogResult {
    /** Copies the list. */
    public Applied {
      changes = List.copyOf(changes);
    }
  }

  /**
   * Immutable: the same revision with the same contents, a heartbeat; freshness was refreshed.
   *
   * @param revision the revision (unsigned)
   */
  record Heartbeat(long revision) implements CatalogResult {}

  /**
   * Immutable: the update was rejected; nothing changed.
   *
   * @param error the typed reason
   * @param detail human-readable explanation
   */
  record Rejected(CatalogError error, String detail) implements CatalogResult {}
}
