package dev.kvrelay.spi.discovery;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: {@code runtime_config.kv_event_source_mode} ({@code runtime-inputs.md} §4.2).
 */
public enum KvEventSourceMode {
  /** Field omitted: a legacy worker-only source. */
  LEGACY_WORKER_ONLY,
  /** {@code "framework_v1"}. */
  FRAMEWORK_V1,
  /** {@code "state_agent_v2"}. */
  STATE_AGENT_V2,
  /** Any other value: the relay disables KV routing for the card. */
  UNKNOWN;

  /** The mode a raw field value selects ({@code null} = omitted). */
  public static KvEventSourceMode of(@Nullable String raw) {
    if (raw == null) {
      return LEGACY_WORKER_ONLY;
    }
    return switch (raw) {
      case "framework_v1" -> FRAMEWORK_V1;
      case "state_agent_v2" -> STATE_AGENT_V2;
      default -> UNKNOWN;
    };
  }
}
