/**
 * The embeddable relay engine: {@link dev.kvrelay.engine.RelayEngine} (built from a validated, immutable {@link
 * dev.kvrelay.engine.RelayEngineConfig} and the discovery, event-plane and request-plane SPIs), its errors and
 * its {@link dev.kvrelay.engine.stats.RelayEngineStats}. This package assembles the engine's inside (membership,
 * topology, catalog, load, actor, recovery, hub and stream packages, none of them exported); its API is this
 * package, {@code dev.kvrelay.engine.consumer}, {@code dev.kvrelay.engine.wan} and {@code dev.kvrelay.engine.stats}.
 */
@NullMarked
package dev.kvrelay.engine;

import org.jspecify.annotations.NullMarked;
