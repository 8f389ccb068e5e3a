package dev.kvrelay.engine.wan;

import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WorkerRole;
import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: the readiness of one LoRA adapter under a base entry (wire
 * {@code AdapterReadiness}, producer.md §5.4).
 *
 * @param canonicalModelId the adapter's served name
 * @param state derived from the base state and the adapter's own units
 * @param missingRoles roles the adapter's units miss (empty when UNKNOWN), enum order
 */
public record AdapterReadiness(String canonicalModelId, ServingReadinessState state, List<WorkerRole> missingRoles) {
  /** Validates and copies. */
  public AdapterReadiness {
    WireText.require("canonicalModelId", canonicalModelId);
    Objects.requireNonNull(state, "state");
    missingRoles = Roles.sortedUnique("missingRoles", missingRoles);
  }
}
