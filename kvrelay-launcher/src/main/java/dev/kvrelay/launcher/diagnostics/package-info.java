/**
 * The relay's diagnostic runtime endpoints (producer.md §7.5): {@code health}, {@code stats} and {@code snapshot}
 * of component {@code kv_dc_relay_<first 32 hex of SHA-256(dc_id)>} in {@code DYN_NAMESPACE}, served on the TCP
 * request plane (plugins-wire §1, §3) and advertised as endpoint instances through the discovery backend.
 * {@link dev.kvrelay.launcher.diagnostics.DiagnosticEndpoints#start} is the one entry point.
 */
@NullMarked
package dev.kvrelay.launcher.diagnostics;

import org.jspecify.annotations.NullMarked;
