package dev.kvrelay.launcher.cli;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Not thread-safe: confined to one {@link RelayCommandLine#parse} call — the picocli model of the
 * {@code demo} subcommand (an in-process DC for trying the relay out; never a fallback).
 */
@Command(name = "demo", description = "Run the embedded demo DC: in-process workers behind the relay")
final class DemoOptions {
  @Option(names = "--bind", paramLabel = "HOST:PORT", description = "Serve the demo DC's WAN gRPC on this address")
  @Nullable String bind;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit")
  boolean help;
}
