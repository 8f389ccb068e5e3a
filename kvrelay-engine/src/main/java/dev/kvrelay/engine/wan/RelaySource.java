package dev.kvrelay.engine.wan;

/**
 * Thread-safe (a handle with no state of its own): one relay a {@code RelayConsumer} can read — a {@code
 * RelayEngine} in this process or a {@code RelayGrpcClient} for a relay in another DC. An opaque handle: its
 * streams are transport plumbing that an embedder never calls; the consumer refuses a source that is neither.
 */
public interface RelaySource {}
