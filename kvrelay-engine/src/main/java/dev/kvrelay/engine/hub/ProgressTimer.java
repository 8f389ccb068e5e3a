package dev.kvrelay.engine.hub;

import dev.kvrelay.engine.actor.ActorScheduler;

/**
 * Guarded by its {@link PoolStream}'s lock (not thread-safe on its own; every method is called with that lock
 * held): the snapshot-progress timer of one pool stream, namely the progress timeout and the one re-armable timer
 * that checks the bootstrap's progress deadline while the stream holds the encoding permit.
 *
 * <p>At most one timer task is scheduled at a time; the stream's timer callback calls {@link #fired()} first and
 * re-arms with {@link #arm(long)} for the time left if the deadline has not passed.
 */
final class ProgressTimer {
  private final long timeoutNanos;
  private final ActorScheduler timers;
  private final Runnable tick;

  private boolean armed;

  /** A timer of {@code timeoutNanos} that runs {@code tick} on {@code timers}. */
  ProgressTimer(long timeoutNanos, ActorScheduler timers, Runnable tick) {
    this.timeoutNanos = timeoutNanos;
    this.timers = timers;
    this.tick = tick;
  }

  /** The snapshot progress timeout: how long a chunk may take to be taken. */
  long timeoutNanos() {
    return timeoutNanos;
  }

  /** Arms the timer for a full timeout unless it is armed (the permit was just granted). */
  void arm() {
    arm(timeoutNanos);
  }

  /** Arms the timer for {@code delayNanos} unless it is armed. */
  void arm(long delayNanos) {
    if (!armed) {
      armed = true;
      timers.schedule(tick, delayNanos);
    }
  }

  /** The timer fired: it is no longer armed. */
  void fired() {
    armed = false;
  }
}
