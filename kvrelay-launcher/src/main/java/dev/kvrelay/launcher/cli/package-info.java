/**
 * The stock relay's command line: picocli parsing of the seed's flags composed over the {@code DYN_RELAY_*}
 * environment, validated by {@code RelayEngineConfig.fromEnvironment} and rendered with upstream's texts
 * ({@code producer.md} §7.1–§7.4, §7.6; {@code plugins-wire.md} §5).
 */
@org.jspecify.annotations.NullMarked
package dev.kvrelay.launcher.cli;
