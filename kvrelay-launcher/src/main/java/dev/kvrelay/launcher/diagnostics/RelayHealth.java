package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the relay's health object (producer.md §7.5), the answer of the {@code health}
 * endpoint. {@link #healthy()} is derived, never given: {@code !shutting_down ∧ no host error ∧
 * fenced_endpoint_count = 0 ∧ (WAN disabled ∨ (serving ∧ no WAN error))}.
 *
 * @param sources the sources member
 * @param shuttingDown whether the relay is stopping (or stopped) on request
 * @param hostLastError the first terminal host error, or null (first error wins)
 * @param endpointCount pool generations the engine runs
 * @param activeEndpointCount of them, those whose actor is running
 * @param fencedEndpointCount of them, those whose actor or publisher is fenced
 * @param wan the WAN listener's status
 */
public record RelayHealth(SourcesStatus sources, boolean shuttingDown, @Nullable String hostLastError,
    int endpointCount, int activeEndpointCount, int fencedEndpointCount, WanStatus wan) {

  /** Requires the members. */
  public RelayHealth {
    Objects.requireNonNull(sources, "sources");
    Objects.requireNonNull(wan, "wan");
  }

  /** The producer.md §7.5 rule. */
  public boolean healthy() {
    return !shuttingDown && hostLastError == null && fencedEndpointCount == 0
        && (!wan.enabled() || (wan.serving() && wan.lastError() == null));
  }

  /** The JSON object, members in the spec's order. */
  public JsonObject toJson() {
    return JsonObject.builder()
        .put("sources", sources.toJson())
        .put("healthy", JsonBoolean.of(healthy()))
        .put("shutting_down", JsonBoolean.of(shuttingDown))
        .put("host_last_error", SourcesStatus.text(hostLastError))
        .put("endpoint_count", JsonNumber.of(endpointCount))
        .put("active_endpoint_count", JsonNumber.of(activeEndpointCount))
        .put("fenced_endpoint_count", JsonNumber.of(fencedEndpointCount))
        .put("wan_enabled", JsonBoolean.of(wan.enabled()))
        .put("wan_serving", JsonBoolean.of(wan.serving()))
        .put("wan_bound_address", SourcesStatus.text(wan.boundAddress()))
        .put("wan_last_error", SourcesStatus.text(wan.lastError()))
        .build();
  }
}
