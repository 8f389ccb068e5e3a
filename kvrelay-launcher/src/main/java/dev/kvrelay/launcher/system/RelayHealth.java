package dev.kvrelay.launcher.system;

import dev.kvrelay.engine.PoolStats;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineStats;
import dev.kvrelay.engine.stats.ActorState;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the relay health object of producer §7.5, read from a running engine, its stats and
 * the launcher's WAN and sources status. {@code healthy = !shutting_down ∧ no host error ∧ fenced_endpoint_count
 * = 0 ∧ (WAN disabled ∨ (serving ∧ no WAN error))}.
 *
 * @param sources the sources-file status
 * @param healthy the readiness verdict (health and live answer 200 iff true)
 * @param shuttingDown the engine was closed or the launcher began shutting down
 * @param hostLastError the engine's terminal failure (first error wins), or null
 * @param endpointCount serving endpoints with a pool generation
 * @param activeEndpointCount those whose pool actor is running
 * @param fencedEndpointCount those whose pool actor is fenced (or did not answer)
 * @param wan the WAN listener's status
 * @param endpoints per serving endpoint ({@code ns.comp.ep}): whether its pool actor is running
 */
public record RelayHealth(
    SourcesStatus sources,
    boolean healthy,
    boolean shuttingDown,
    @Nullable String hostLastError,
    int endpointCount,
    int activeEndpointCount,
    int fencedEndpointCount,
    WanStatus wan,
    Map<String, Boolean> endpoints) {

  /** Copies the endpoint map (sorted by name). */
  public RelayHealth {
    Objects.requireNonNull(sources, "sources");
    Objects.requireNonNull(wan, "wan");
    endpoints = Map.copyOf(endpoints);
  }

  /**
   * Reads the health object.
   *
   * @param engine the relay (its {@link RelayEngine#terminated()} gives shutdown and the host error)
   * @param stats a read of {@code engine.stats()}
   * @param info the launcher's WAN and sources status
   * @param launcherShuttingDown whether the launcher began its shutdown path
   */
  public static RelayHealth read(RelayEngine engine, RelayEngineStats stats, RelayProcessInfo info,
      boolean launcherShuttingDown) {
    CompletableFuture<Void> terminated = engine.terminated();
    boolean shuttingDown = launcherShuttingDown || terminated.isDone();
    String hostError = null;
    if (terminated.isCompletedExceptionally()) {
      hostError = causeOf(terminated);
    }
    int active = 0;
    int fenced = 0;
    Map<String, Boolean> endpoints = new TreeMap<>();
    for (PoolStats pool : stats.pools()) {
      boolean running = pool.actor() != null && pool.actor().state() == ActorState.RUNNING;
      if (running) {
        active++;
      } else {
        fenced++;
      }
      endpoints.merge(pool.descriptor().servingEndpoint().dottedName(), running, Boolean::logicalAnd);
    }
    WanStatus wan = Objects.requireNonNull(info.wan().get(), "wan status");
    SourcesStatus sources = Objects.requireNonNull(info.sources().get(), "sources status");
    boolean wanOk = !wan.enabled() || (wan.serving() && wan.lastError() == null);
    boolean healthy = !shuttingDown && hostError == null && fenced == 0 && wanOk;
    return new RelayHealth(sources, healthy, shuttingDown, hostError, stats.pools().size(), active, fenced, wan,
        endpoints);
  }

  /**
   * {@code /engine/state}'s {@code ready}: {@code wan_serving ∧ !shutting_down ∧ no host/WAN error} (producer §7.5).
   */
  public boolean engineStateReady() {
    return wan.serving() && !shuttingDown && hostLastError == null && wan.lastError() == null;
  }

  private static String causeOf(CompletableFuture<Void> terminated) {
    try {
      terminated.get();
      return "terminated";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while reading the host error";
    } catch (ExecutionException | CompletionException e) {
      Throwable c = e.getCause() != null ? e.getCause() : e;
      return c.getMessage() != null ? c.getMessage() : c.toString();
    } catch (java.util.concurrent.CancellationException e) {
      return "cancelled";
    }
  }
}
