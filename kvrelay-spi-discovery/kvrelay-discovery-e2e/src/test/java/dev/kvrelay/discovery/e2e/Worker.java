package dev.kvrelay.discovery.e2e;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.WorkerRole;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: what one simulated Dynamo worker advertises — one endpoint instance, one base model card
 * and its LoRA adapter cards, and (when it publishes KV events) one KV event source for DP rank 0.
 *
 * @param name the worker's name (the pod / CR name for Kubernetes)
 * @param endpoint the serving endpoint
 * @param model the base model's display name
 * @param role {@code worker_type}, or {@code null} for a legacy card
 * @param needs the readiness DNF ({@code needs}), empty for none
 * @param adapters the LoRA adapters it serves
 * @param kvEvents true if it advertises a KV event source (only then does it get a pool)
 * @param taints {@code runtime_config.taints}
 */
public record Worker(String name, DynamoEndpointId endpoint, String model, @Nullable WorkerRole role,
    List<List<WorkerRole>> needs, List<Adapter> adapters, boolean kvEvents, List<String> taints) {

  /** Immutable and thread-safe: a LoRA adapter card: served name, runtime adapter name and the key suffix. */
  public record Adapter(String served, String loraName, String suffix) {}

  public Worker {
    needs = needs.stream().map(List::copyOf).toList();
    adapters = List.copyOf(adapters);
    taints = List.copyOf(taints);
  }

  /** A worker with KV events, no adapters and no taints. */
  public static Worker of(String name, String endpoint, String model, @Nullable WorkerRole role,
      List<List<WorkerRole>> needs) {
    String[] p = endpoint.split("/");
    return new Worker(name, new DynamoEndpointId(p[0], p[1], p[2]), model, role, needs, List.of(), true, List.of());
  }

  /** The same worker with one more adapter. */
  public Worker withAdapter(String served, String loraName, String suffix) {
    List<Adapter> more = new java.util.ArrayList<>(adapters);
    more.add(new Adapter(served, loraName, suffix));
    return new Worker(name, endpoint, model, role, needs, more, kvEvents, taints);
  }

  /** The same worker without adapters. */
  public Worker withoutAdapters() {
    return new Worker(name, endpoint, model, role, needs, List.of(), kvEvents, taints);
  }

  /** The same worker without a KV event source (an encode worker: a card, no KV events). */
  public Worker withoutKvEvents() {
    return new Worker(name, endpoint, model, role, needs, adapters, false, taints);
  }

  /** The same worker with other taints. */
  public Worker withTaints(List<String> newTaints) {
    return new Worker(name, endpoint, model, role, needs, adapters, kvEvents, newTaints);
  }
}
