package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.launcher.health.RelayHealth;
import dev.kvrelay.launcher.health.SourcesStatus;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (no state): the {@code health} endpoint's answer, the relay health object of producer
 * §7.5 as JSON with the members in the spec's order.
 */
final class HealthDocument {
  private HealthDocument() {}

  /** The JSON object of {@code health}. */
  static JsonObject of(RelayHealth health) {
    SourcesStatus s = health.sources();
    JsonObject sources = JsonObject.builder()
        .put("desiredRevision", text(s.desiredRevision()))
        .put("appliedRevision", text(s.appliedRevision()))
        .put("count", JsonNumber.of(s.count()))
        .put("lastError", text(s.lastError()))
        .build();
    return JsonObject.builder()
        .put("sources", sources)
        .put("healthy", JsonBoolean.of(health.healthy()))
        .put("shutting_down", JsonBoolean.of(health.shuttingDown()))
        .put("host_last_error", text(health.hostLastError()))
        .put("endpoint_count", JsonNumber.of(health.endpointCount()))
        .put("active_endpoint_count", JsonNumber.of(health.activeEndpointCount()))
        .put("fenced_endpoint_count", JsonNumber.of(health.fencedEndpointCount()))
        .put("wan_enabled", JsonBoolean.of(health.wan().enabled()))
        .put("wan_serving", JsonBoolean.of(health.wan().serving()))
        .put("wan_bound_address", text(health.wan().boundAddress()))
        .put("wan_last_error", text(health.wan().lastError()))
        .build();
  }

  private static JsonValue text(@Nullable String s) {
    return s == null ? JsonNull.INSTANCE : new JsonString(s);
  }
}
