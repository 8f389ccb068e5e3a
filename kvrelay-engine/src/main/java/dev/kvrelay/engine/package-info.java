/**
 * The embeddable relay engine. So far: its validated, immutable configuration ({@link
 * dev.kvrelay.engine.RelayEngineConfig}) with a set-once builder and an environment reader.
 */
@NullMarked
package dev.kvrelay.engine;

import org.jspecify.annotations.NullMarked;
