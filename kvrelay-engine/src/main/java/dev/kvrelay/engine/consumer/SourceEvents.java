package dev.kvrelay.engine.consumer;

/**
 * Not thread-safe: called on the consumer task only — what a source's streams and its pool sessions report to the
 * consumer's supervision ({@link SourceSupervisor}).
 */
interface SourceEvents {

  /** Stops {@code source} for good (incompatible deployment or request): drops its state, never reconnects. */
  void stopSource(ConsumerSource source);

  /** Drops all of {@code source}'s state (a new connection epoch) and reconnects after backoff (§7.2, §7.6). */
  void resetSource(ConsumerSource source);

  /** A source's catalog changed: bring the pool sessions and the global view in line with it. */
  void catalogChanged();

  /** A replica's state or stream changed: republish the replica states. */
  void replicasChanged();
}
