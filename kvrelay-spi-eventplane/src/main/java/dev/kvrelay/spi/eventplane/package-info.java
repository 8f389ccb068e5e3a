/**
 * Event-plane SPI: subscribe to {@code kv-events} and {@code kv_metrics} of a scope and receive decoded
 * {@link dev.kvrelay.spi.eventplane.RouterEvent}s and {@link dev.kvrelay.spi.eventplane.ActiveLoad}s with
 * their {@link dev.kvrelay.spi.eventplane.EventEnvelope}; query a worker's KV indexer for recovery
 * through a {@link dev.kvrelay.spi.eventplane.RequestPlaneClient}.
 *
 * <p>All {@code u64} values (ids, hashes, sequences) are unsigned and carried in {@code long}; {@code u32}
 * values ({@code dp_rank}) are unsigned and carried in {@code int}. Malformed input raises the checked
 * {@link dev.kvrelay.spi.eventplane.EventDecodeException}, never an unchecked exception.
 */
@NullMarked
package dev.kvrelay.spi.eventplane;

import org.jspecify.annotations.NullMarked;
