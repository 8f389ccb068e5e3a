package dev.kvrelay.launcher.cli;

import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Not thread-safe: confined to one {@link RelayCommandLine#parse} call — the picocli model of the relay's
 * flags ({@code producer.md} §7.1), filled by reflection; values are raw text, validated by the caller.
 */
@Command(name = "kvrelay", description = "Dynamo DC-scoped KV Relay", subcommands = DemoOptions.class,
    sortOptions = false)
final class RelayOptions {
  @Option(names = "--dc-id", paramLabel = "DC_ID", description = "DC id (env DYN_DC_ID); required")
  @Nullable String dcId;

  @Option(names = "--namespaces", paramLabel = "NS[,NS...]",
      description = "Comma-separated Dynamo namespaces containing inference DGDs (env DYN_RELAY_NAMESPACES)")
  @Nullable String namespaces;

  @Option(names = "--namespace-filter", paramLabel = "NS",
      description = "Legacy single-namespace discovery filter; equivalent to --namespaces with one value")
  @Nullable String namespaceFilter;

  @Option(names = "--watch-all", arity = "0",
      description = "Watch inference model cards in every Dynamo namespace (env DYN_RELAY_WATCH_ALL)")
  boolean watchAll;

  @Option(names = "--endpoint-prefix", paramLabel = "PREFIX",
      description = "Endpoint prefix to include; repeat the option for multiple prefixes"
          + " (env DYN_RELAY_ENDPOINT_PREFIXES, comma-separated)")
  @Nullable List<String> endpointPrefixes;

  @Option(names = "--expected-unique-blocks", paramLabel = "N",
      description = "Expected unique blocks per pool (env DYN_RELAY_EXPECTED_UNIQUE_BLOCKS; default 1048576)")
  @Nullable String expectedUniqueBlocks;

  @Option(names = "--bind", paramLabel = "ADDR",
      description = "Plaintext WAN gRPC listen address, e.g. 0.0.0.0:5561 (env DYN_RELAY_BIND); unset: WAN off")
  @Nullable String bind;

  @Option(names = "--sources-file", paramLabel = "PATH",
      description = "Watch the namespaces listed in this JSON file instead of discovering them"
          + " (env DYN_RELAY_CONNECTION_REVISION pins its connectionRevision)")
  @Nullable String sourcesFile;

  @Option(names = "--log-level", paramLabel = "LEVEL",
      description = "Root log level: trace, debug, info, warn, error, off (over env DYN_LOG, which also takes"
          + " logger=level items)")
  @Nullable String logLevel;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit")
  boolean help;

  /** True if any relay flag (not the help flag) was given. */
  boolean anyRelayFlag() {
    return dcId != null || namespaces != null || namespaceFilter != null || watchAll || endpointPrefixes != null
        || expectedUniqueBlocks != null || bind != null || sourcesFile != null;
  }
}
