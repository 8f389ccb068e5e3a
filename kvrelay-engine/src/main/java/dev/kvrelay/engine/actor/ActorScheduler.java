package dev.kvrelay.engine.actor;

/**
 * Thread-safe (implementations must accept calls from any thread): where the pool actor runs its
 * processing task and its one-shot publication timer. Production code wraps one single-threaded
 * {@code ScheduledExecutorService}; tests use a manual, deterministic implementation.
 */
public interface ActorScheduler {
  /** Runs {@code task} soon, on the actor's executor. Never runs it on the calling thread inline. */
  void execute(Runnable task);

  /** Runs {@code task} once after {@code delayNanos} nanoseconds. Stale timers are harmless. */
  void schedule(Runnable task, long delayNanos);
}
