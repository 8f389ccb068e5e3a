package dev.kvrelay.ckf.consumer;

import java.util.Objects;

/**
 * Immutable (if {@code P} is) and thread-safe: the pool bound to one consumer lane in a
 * {@link GlobalCkfManifest}.
 *
 * @param pool the pool identity; compared only with {@link Object#equals(Object)}
 * @param dcId the pool's data-center id (unsigned 64-bit); distinct across the lanes of one manifest
 * @param <P> the engine's pool identity type
 */
public record CkfLaneOwner<P>(P pool, long dcId) {
  /** Rejects a null pool. */
  public CkfLaneOwner {
    Objects.requireNonNull(pool, "pool");
  }

  @Override
  public String toString() {
    return "CkfLaneOwner[pool=" + pool + ", dcId=" + String.format("%016x", dcId) + "]";
  }
}
