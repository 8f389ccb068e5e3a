package dev.kvrelay.engine.recovery;

import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;

/**
 * Thread-safe (implementations must accept calls from any thread and never block): what the recovery
 * feeds, normally the pool actor's {@code submit}.
 */
@FunctionalInterface
public interface PoolCommandSink {
  /** Offers {@code command}; a {@link SubmitResult.Rejected} means nothing changed. */
  SubmitResult submit(PoolCommand command);
}
