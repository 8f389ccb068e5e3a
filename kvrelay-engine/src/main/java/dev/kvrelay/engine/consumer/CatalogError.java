package dev.kvrelay.engine.consumer;

/** Immutable: why a catalog update was rejected (wan-grpc.md §7.2, §7.3); a rejected update changes nothing. */
public enum CatalogError {
  /** Marker ≠ {@code 0x4B565231}: deployment skew, stop. */
  CONTRACT_MISMATCH,
  /** protocol_version ≠ 1: deployment skew, stop. */
  PROTOCOL_VERSION_MISMATCH,
  /** No relay identity. */
  RELAY_MISSING,
  /** The relay identity changed within the connection epoch: drop all state (the catalog view's reset) and reconnect. */
  RELAY_CHANGED,
  /** A smaller revision than the last applied: error and reconnect. */
  REVISION_REGRESSED,
  /** The same revision with different contents. */
  REVISION_CONFLICT
}
