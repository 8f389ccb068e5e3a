package dev.kvrelay.engine;

import dev.kvrelay.api.RelayIdentity;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * Immutable and thread-safe (each part keeps its own contract): what the relay host is given by its engine instead
 * of the engine itself: the configuration and identity, the clocks, the control task, the parts pool generations are
 * built from, and the test seam around the load publisher.
 *
 * @param loadPublisher wraps the engine's own load publisher (a test seam; normally the identity)
 */
record HostServices(RelayEngineConfig config, RelayIdentity identity, LongSupplier nanoTime,
    LongSupplier epochMillis, ControlTask control, PoolParts pools, UnaryOperator<LoadPublisher> loadPublisher) {}
