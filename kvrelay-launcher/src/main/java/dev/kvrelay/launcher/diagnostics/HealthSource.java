package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.engine.PoolStats;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineStats;
import dev.kvrelay.engine.stats.ActorState;
import dev.kvrelay.engine.stats.PoolActorStats;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Thread-safe (implementations are called concurrently from the request server's pool): where the {@code health}
 * endpoint reads the relay's health object. The launcher may plug in the one its system server uses, so
 * {@code /health} and this endpoint agree.
 */
@FunctionalInterface
public interface HealthSource {

  /** The health object now. */
  RelayHealth health();

  /**
   * Thread-safe (reads only thread-safe engine calls): the health object computed from a running engine's public
   * API: {@code host_last_error} is the cause of an exceptional {@link RelayEngine#terminated()}, shutting down is
   * its normal completion, the endpoint counts come from {@link RelayEngine#stats()} (one per active pool
   * generation: the engine does not expose discovered-but-unmaterialized endpoint slots).
   *
   * @param engine the engine
   * @param sources the sources member
   * @param wan the WAN status, read on every call
   */
  static HealthSource ofEngine(RelayEngine engine, Supplier<SourcesStatus> sources, Supplier<WanStatus> wan) {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(sources, "sources");
    Objects.requireNonNull(wan, "wan");
    return () -> {
      CompletableFuture<Void> t = engine.terminated();
      String hostError = null;
      boolean shuttingDown = false;
      if (t.isDone()) {
        try {
          t.get();
          shuttingDown = true;
        } catch (ExecutionException | CompletionException e) {
          Throwable c = e.getCause() == null ? e : e.getCause();
          hostError = c.getMessage() == null ? c.toString() : c.getMessage();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (java.util.concurrent.CancellationException e) {
          shuttingDown = true;
        }
      }
      int total = 0;
      int active = 0;
      int fenced = 0;
      if (!t.isDone()) {
        RelayEngineStats s = engine.stats();
        for (PoolStats p : s.pools()) {
          total++;
          PoolActorStats a = p.actor();
          if (a == null) {
            continue;
          }
          if (a.state() == ActorState.FENCED || a.producer().fenced()) {
            fenced++;
          } else if (a.state() == ActorState.RUNNING) {
            active++;
          }
        }
      }
      return new RelayHealth(sources.get(), shuttingDown, hostError, total, active, fenced, wan.get());
    };
  }
}
