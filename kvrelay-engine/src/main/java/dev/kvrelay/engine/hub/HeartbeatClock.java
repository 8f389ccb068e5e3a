package dev.kvrelay.engine.hub;

import dev.kvrelay.engine.actor.ActorScheduler;

/**
 * Guarded by its {@link PoolStream}'s lock (not thread-safe on its own; every method is called with that lock
 * held): the heartbeat timing of one pool stream, namely when a frame was last taken, whether a HEARTBEAT is due
 * (one heartbeat interval without a taken frame) and the one re-armable timer that wakes the consumer when it is.
 *
 * <p>At most one timer task is scheduled at a time; the stream's timer callback calls {@link #fired()} first and
 * re-arms with {@link #arm(long)} for the time left if the heartbeat is not yet due.
 */
final class HeartbeatClock {
  private final long intervalNanos;
  private final ActorScheduler timers;
  private final Runnable tick;

  private long lastTakenNanos;
  private boolean armed;

  /** A clock of {@code intervalNanos} whose timer runs {@code tick} on {@code timers}. */
  HeartbeatClock(long intervalNanos, ActorScheduler timers, Runnable tick) {
    this.intervalNanos = intervalNanos;
    this.timers = timers;
    this.tick = tick;
  }

  /** A frame (a snapshot chunk) was taken at {@code now}; the timer is left as it is. */
  void taken(long now) {
    lastTakenNanos = now;
  }

  /** A frame was taken at {@code now} after the bootstrap: the timer is armed (if it is not) for an interval. */
  void takenAndArm(long now) {
    lastTakenNanos = now;
    arm(intervalNanos);
  }

  /** Arms the timer for a full interval unless it is armed (the bootstrap just ended). */
  void arm() {
    arm(intervalNanos);
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

  /** True if a HEARTBEAT is due at {@code now}. */
  boolean due(long now) {
    return now - lastTakenNanos >= intervalNanos;
  }

  /** Nanoseconds from {@code now} until a HEARTBEAT is due (≤ 0: due now). */
  long untilDue(long now) {
    return lastTakenNanos + intervalNanos - now;
  }
}
