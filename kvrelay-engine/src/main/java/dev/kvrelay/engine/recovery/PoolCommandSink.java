package dev.kvrelay.engine.recovery;

import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.spi.eventplane.RouterEvent;

/**
 * Thread-safe (implementations must accept calls from any thread and never block): what the recovery
 * feeds, normally the pool actor's {@code submit}.
 */
@FunctionalInterface
public interface PoolCommandSink {
  /** Offers {@code command}; a {@link SubmitResult.Rejected} means nothing changed. */
  SubmitResult submit(PoolCommand command);

  /**
   * Backpressure: true if an {@code Apply} of {@code event} would find room now; otherwise {@code onRoom} is run
   * once (from any thread, never blocking) when room may have freed, and false is returned. The default sink always
   * has room.
   */
  default boolean roomFor(RouterEvent event, Runnable onRoom) {
    return true;
  }

  /** The sink of the pool actor {@code actor}: its submissions and its backpressure ({@link PoolActor#roomFor}). */
  static PoolCommandSink of(PoolActor actor) {
    return new PoolCommandSink() {
      @Override
      public SubmitResult submit(PoolCommand command) {
        return actor.submit(command);
      }

      @Override
      public boolean roomFor(RouterEvent event, Runnable onRoom) {
        return actor.roomFor(event, onRoom);
      }
    };
  }
}
