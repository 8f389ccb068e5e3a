package dev.kvrelay.engine.load;

import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable and thread-safe: one catalog pool as input of a serving-load window.
 *
 * @param descriptor the pool as the catalog lists it (producer, serving endpoint, registrations)
 * @param runtimeConfigs the pool's serving facts: worker id (unsigned) → runtime config; empty when the pool
 *     has none (an unmodifiable copy)
 * @param load the pool's load snapshot; only its {@link PoolLoadSnapshot#scheduler()} aggregate is used
 */
public record ServingPoolInput(
    KvPoolDescriptor descriptor, Map<Long, RuntimeConfig> runtimeConfigs, PoolLoadSnapshot load) {

  /** Copies the map. */
  public ServingPoolInput {
    Objects.requireNonNull(descriptor, "descriptor");
    Objects.requireNonNull(load, "load");
    runtimeConfigs = Map.copyOf(runtimeConfigs);
  }
}
