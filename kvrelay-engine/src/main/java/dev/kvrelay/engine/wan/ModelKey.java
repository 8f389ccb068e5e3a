package dev.kvrelay.engine.wan;

import java.util.Objects;

/**
 * Immutable and thread-safe: the key of one readiness entry, {@code (namespace, canonical model)}.
 *
 * @param namespace the entry's namespace
 * @param canonicalModelId the base canonical model
 */
public record ModelKey(String namespace, String canonicalModelId) {
  /** Rejects nulls. */
  public ModelKey {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(canonicalModelId, "canonicalModelId");
  }
}
