/**
 * The relay health object of producer §7.5, one model read by both places that answer it: the system HTTP
 * server's health, live and {@code /engine/state} routes ({@code dev.kvrelay.launcher.system}) and the
 * request-plane {@code health} endpoint ({@code dev.kvrelay.launcher.diagnostics}). Entry point:
 * {@link dev.kvrelay.launcher.health.RelayHealth#read}.
 */
@NullMarked
package dev.kvrelay.launcher.health;

import org.jspecify.annotations.NullMarked;
