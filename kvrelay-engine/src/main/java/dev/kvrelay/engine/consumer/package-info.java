/**
 * The consumer an embedder reads relays with (wan-grpc.md §7): {@link dev.kvrelay.engine.consumer.RelayConsumer}
 * reads up to 16 {@link dev.kvrelay.engine.wan.RelaySource}s (the in-process engine or a gRPC client) for one
 * indexer domain and answers "tokens → matched prefix depth per DC" ({@link
 * dev.kvrelay.engine.consumer.GlobalViewAnswer}), with readiness, load, replica states and counters. Inside (package
 * private): the multi-DC global view, the pool replicas applying {@code FilterUpdate}-shaped frames to one Global
 * CKF lane each, and the load view. The catalog and readiness views are public for embedders that read the raw
 * streams themselves. The views are pure, single-threaded and deterministic (time is passed in); the consumer
 * confines them to one serial task.
 */
@NullMarked
package dev.kvrelay.engine.consumer;

import org.jspecify.annotations.NullMarked;
