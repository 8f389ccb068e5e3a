package dev.kvrelay.launcher.cli;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Not thread-safe: confined to one {@link RelayCommandLine#parse} call — the picocli model of the
 * {@code demo} subcommand (an in-process DC for trying the relay out; never a fallback).
 */
@Command(name = "demo", sortOptions = false, description = {
    "Run the embedded demo DC: one relay with simulated workers that keep caching and evicting, served over WAN"
        + " gRPC until SIGTERM or SIGINT. Prints the bound address and the pools to look at."})
final class DemoOptions {
  @Option(names = "--bind", paramLabel = "HOST:PORT",
      description = "Serve the demo DC's WAN gRPC on this address (default 127.0.0.1:5561; port 0 = any free port)")
  @Nullable String bind;

  @Option(names = "--self-check", arity = "0",
      description = "Instead: run three demo DCs in process, read them back with a router-side consumer,"
          + " print each answer next to the exact one and exit 0 only if all match")
  boolean selfCheck;

  @Option(names = "--log-level", paramLabel = "LEVEL",
      description = "Root log level: trace, debug, info, warn, error, off (over env DYN_LOG)")
  @Nullable String logLevel;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit")
  boolean help;
}
