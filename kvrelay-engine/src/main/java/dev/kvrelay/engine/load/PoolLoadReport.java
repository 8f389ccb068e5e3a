package dev.kvrelay.engine.load;

import dev.kvrelay.api.ProducerIdentity;

/**
 * Immutable and thread-safe: one active pool with serving facts and its load, the input of a window.
 *
 * @param producer the pool's producer identity
 * @param load its load snapshot
 */
public record PoolLoadReport(ProducerIdentity producer, PoolLoadSnapshot load) {}
