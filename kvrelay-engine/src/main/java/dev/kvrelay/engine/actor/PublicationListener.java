package dev.kvrelay.engine.actor;

import dev.kvrelay.ckf.producer.CkfPublication;

/**
 * Called only from the pool actor's confined task: receives each published delta (and each oversized
 * tail published as a snapshot) in sequence order; typically the publication hub's bounded broadcast
 * (64 deltas, producer.md §3.1).
 */
@FunctionalInterface
public interface PublicationListener {
  /**
   * Offers one publication (a {@code CkfDelta} or {@code CkfSnapshot}); must not block.
   *
   * @return false if the listener cannot keep up (its buffer is full): the actor records a lag, fences
   *     the publisher (delivery uncertain) and publishes nothing more until the next subscriber takes a
   *     barrier snapshot, which re-synchronizes everybody
   */
  boolean offer(CkfPublication publication);
}
