/**
 * The relay's system HTTP server (plugins-wire §4, producer §7.5): {@code DYN_SYSTEM_HEALTH_PATH} and
 * {@code DYN_SYSTEM_LIVE_PATH} with upstream's health body, {@code /engine/state}, and {@code /metrics} in
 * Prometheus text with upstream's {@code dynamo_component_kv_dc_relay_*} names plus kvrelay's own counters and
 * the JVM's. Entry points: {@link dev.kvrelay.launcher.system.SystemServerSettings#fromEnvironment} and
 * {@link dev.kvrelay.launcher.system.SystemServer#start}.
 */
@NullMarked
package dev.kvrelay.launcher.system;

import org.jspecify.annotations.NullMarked;
