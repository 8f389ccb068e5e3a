package dev.kvrelay.launcher.health;

import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import dev.kvrelay.engine.stats.PoolStats;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the relay health object of producer §7.5, read from a running engine and the
 * launcher's WAN and sources status. {@link #healthy()} is derived, never given: {@code !shutting_down ∧ no host
 * error ∧ fenced_endpoint_count = 0 ∧ (WAN disabled ∨ (serving ∧ no WAN error))}.
 *
 * @param sources the sources member
 * @param shuttingDown the engine ended (on request or on a failure) or the launcher began shutting down
 * @param hostLastError the engine's terminal failure (first error wins), or null
 * @param endpointCount pool generations the engine runs (the engine does not expose discovered endpoints that have
 *     no generation yet)
 * @param activeEndpointCount of them, those whose pool actor is running and whose publisher is not fenced
 * @param fencedEndpointCount of them, those whose pool actor or publisher is fenced
 * @param wan the WAN listener's status
 * @param endpoints per serving endpoint ({@code ns.comp.ep}): whether all its generations are active (upstream's
 *     health body lists these as {@code ready} / {@code notready})
 */
public record RelayHealth(
    SourcesStatus sources,
    boolean shuttingDown,
    @Nullable String hostLastError,
    int endpointCount,
    int activeEndpointCount,
    int fencedEndpointCount,
    WanStatus wan,
    Map<String, Boolean> endpoints) {

  /** Copies the endpoint map. */
  public RelayHealth {
    Objects.requireNonNull(sources, "sources");
    Objects.requireNonNull(wan, "wan");
    endpoints = Map.copyOf(endpoints);
  }

  /** A health object without per-endpoint detail. */
  public RelayHealth(SourcesStatus sources, boolean shuttingDown, @Nullable String hostLastError, int endpointCount,
      int activeEndpointCount, int fencedEndpointCount, WanStatus wan) {
    this(sources, shuttingDown, hostLastError, endpointCount, activeEndpointCount, fencedEndpointCount, wan,
        Map.of());
  }

  /** The producer §7.5 rule: health and live answer 200 iff true. */
  public boolean healthy() {
    return !shuttingDown && hostLastError == null && fencedEndpointCount == 0
        && (!wan.enabled() || (wan.serving() && wan.lastError() == null));
  }

  /** {@code /engine/state}'s {@code ready}: {@code wan_serving ∧ !shutting_down ∧ no host/WAN error} (§7.5). */
  public boolean engineStateReady() {
    return wan.serving() && !shuttingDown && hostLastError == null && wan.lastError() == null;
  }

  /**
   * Reads the health object now.
   *
   * @param engine the relay ({@link RelayEngine#terminated()} gives shutdown and the host error, {@link
   *     RelayEngine#stats()} the endpoint counts)
   * @param sources the sources member, read once
   * @param wan the WAN status, read once
   * @param launcherShuttingDown whether the launcher began its shutdown path
   */
  public static RelayHealth read(RelayEngine engine, Supplier<SourcesStatus> sources, Supplier<WanStatus> wan,
      boolean launcherShuttingDown) {
    CompletableFuture<Void> terminated = engine.terminated();
    boolean shuttingDown = launcherShuttingDown || terminated.isDone();
    String hostError = terminated.isCompletedExceptionally() ? causeOf(terminated) : null;
    int total = 0;
    int active = 0;
    int fenced = 0;
    Map<String, Boolean> endpoints = new TreeMap<>();
    for (PoolStats pool : engine.stats().pools()) {
      total++;
      PoolStats.Actor a = pool.actor();
      boolean isFenced = a != null && (a.state() == ActorState.FENCED || a.producer().fenced());
      boolean isActive = a != null && !isFenced && a.state() == ActorState.RUNNING;
      if (isFenced) {
        fenced++;
      } else if (isActive) {
        active++;
      }
      endpoints.merge(pool.descriptor().servingEndpoint().dottedName(), isActive, Boolean::logicalAnd);
    }
    return new RelayHealth(Objects.requireNonNull(sources.get(), "sources status"), shuttingDown, hostError, total,
        active, fenced, Objects.requireNonNull(wan.get(), "wan status"), endpoints);
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
    } catch (CancellationException e) {
      return "cancelled";
    }
  }
}
