package dev.kvrelay.engine.wire;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.ModelKey;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Immutable and thread-safe: one {@code ServingLoadUpdate} window without protocol version, relay identity and
 * marker (the gRPC layer adds those; wan-grpc.md §1.7).
 *
 * @param windowSequence 0 for the startup window, then 1, 2, … (u64)
 * @param observedMs producer wall clock when the window was built (Unix ms, u64)
 * @param windowMs the configured window (u64)
 * @param pools pool entries, no producer twice (an unmodifiable copy)
 * @param models model entries, no {@code (namespace, canonical_model_id)} twice (an unmodifiable copy)
 */
public record ServingLoadUpdate(
    long windowSequence, long observedMs, long windowMs, List<PoolServingLoad> pools, List<ModelServingLoad> models) {

  /** Immutable and thread-safe: the key of a model entry. */
  record ModelKey(String namespace, String canonicalModelId) {}

  /**
   * @throws IllegalArgumentException if a producer or a model key repeats
   */
  public ServingLoadUpdate {
    pools = List.copyOf(pools);
    models = List.copyOf(models);
    Set<ProducerIdentity> producers = new HashSet<>();
    for (PoolServingLoad pool : pools) {
      if (!producers.add(pool.producer())) {
        throw new IllegalArgumentException("duplicate producer " + pool.producer());
      }
    }
    Set<ModelKey> keys = new HashSet<>();
    for (ModelServingLoad model : models) {
      if (!keys.add(new ModelKey(model.namespace(), model.canonicalModelId()))) {
        throw new IllegalArgumentException(
            "duplicate model (" + model.namespace() + ", " + model.canonicalModelId() + ")");
      }
    }
  }
}
