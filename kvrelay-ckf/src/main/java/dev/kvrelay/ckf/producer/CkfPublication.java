package dev.kvrelay.ckf.producer;

/**
 * Immutable and thread-safe (all variants) result of one drain: a {@link CkfDelta}, a
 * {@link CkfSnapshot} (when a delta would be too large), or a {@link NoPublication} reason.
 */
public sealed interface CkfPublication permits CkfDelta, CkfSnapshot, NoPublication {}
