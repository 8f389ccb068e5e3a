package dev.kvrelay.engine.topology;

import java.util.Objects;
import java.util.Set;

/**
 * Immutable and thread-safe: one LoRA adapter advertised on an endpoint (producer.md §2.2 step 6, §5.4).
 *
 * @param servedName the adapter card's served name (its canonical model id)
 * @param baseModel the base canonical model the adapter runs on
 * @param adapter the runtime adapter id ({@code lora.name})
 * @param workerIds the workers of the endpoint that advertise this adapter
 */
public record AdapterMembership(String servedName, String baseModel, String adapter, Set<Long> workerIds) {
  /** Validates texts and copies the worker set. */
  public AdapterMembership {
    Text.require("servedName", servedName);
    Text.require("baseModel", baseModel);
    Text.require("adapter", adapter);
    workerIds = Set.copyOf(Objects.requireNonNull(workerIds, "workerIds"));
  }
}
