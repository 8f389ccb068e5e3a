package dev.kvrelay.launcher.cli;

import static dev.kvrelay.launcher.cli.CliFixtures.env;
import static dev.kvrelay.launcher.cli.CliFixtures.failure;
import static dev.kvrelay.launcher.cli.CliFixtures.parse;
import static dev.kvrelay.launcher.cli.CliFixtures.serve;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The accepting half of the parity table in {@code kvrelay-launcher/CLI.md}: each flag, variable,
 * precedence rule, boolean spelling, file-mode rule, help and the demo subcommand (producer.md §7.1–§7.2).
 */
class RelayCommandLineTest {
  private static final List<String> DC = List.of("--dc-id", "dc-a");

  /** Every tuning variable of producer.md §7.2 (from the spec, not from the code), with its WAN-only flag. */
  static final Map<String, Boolean> TUNING = Map.ofEntries(
      Map.entry("DYN_RELAY_EXPECTED_UNIQUE_BLOCKS", false),
      Map.entry("DYN_RELAY_PUBLICATION_THRESHOLD", false),
      Map.entry("DYN_RELAY_PUBLICATION_DELAY_MS", false),
      Map.entry("DYN_RELAY_RECOVERY_ATTEMPT_TIMEOUT_MS", false),
      Map.entry("DYN_RELAY_MAX_MESSAGE_BYTES", true),
      Map.entry("DYN_RELAY_KEEPALIVE_INTERVAL_MS", true),
      Map.entry("DYN_RELAY_KEEPALIVE_TIMEOUT_MS", true),
      Map.entry("DYN_RELAY_POOL_HEARTBEAT_INTERVAL_MS", true),
      Map.entry("DYN_RELAY_READINESS_HEARTBEAT_INTERVAL_MS", true),
      Map.entry("DYN_RELAY_CATALOG_HEARTBEAT_INTERVAL_MS", true),
      Map.entry("DYN_RELAY_SNAPSHOT_PROGRESS_TIMEOUT_MS", true),
      Map.entry("DYN_RELAY_LOAD_WINDOW_MS", true),
      Map.entry("DYN_RELAY_LOAD_FANOUT_CAPACITY", true),
      Map.entry("DYN_RELAY_PUBLICATION_QUEUE_CAPACITY", true),
      Map.entry("DYN_RELAY_PUBLICATION_QUEUE_BYTES", true),
      Map.entry("DYN_RELAY_PUBLICATION_ENCODING_CONCURRENCY", true),
      Map.entry("DYN_RELAY_MAX_CATALOG_SUBSCRIBERS", true),
      Map.entry("DYN_RELAY_MAX_POOL_STREAMS_TOTAL", true),
      Map.entry("DYN_RELAY_MAX_SUBSCRIBERS_PER_POOL", true),
      Map.entry("DYN_RELAY_MAX_INITIALIZED_POOL_HUBS", true),
      Map.entry("DYN_RELAY_MAX_READINESS_SUBSCRIBERS", true),
      Map.entry("DYN_RELAY_MAX_LOAD_SUBSCRIBERS", true),
      Map.entry("DYN_RELAY_MAX_SERVING_LOAD_SUBSCRIBERS", true));

  private static RelayConfigKey keyOf(String envName) {
    for (RelayConfigKey k : RelayConfigKey.values()) {
      if (envName.equals(k.envName())) {
        return k;
      }
    }
    throw new AssertionError("no engine knob reads " + envName);
  }

  private static RelayEngineConfig config(List<String> args, Map<String, String> env) {
    return serve(args, env).engine();
  }

  @Test
  void seedManifestArgumentsStartTheRelay() {
    RelaySettings s = serve(List.of("--dc-id", "dc-a", "--watch-all", "--bind", "0.0.0.0:5561"), env());
    assertThat(s.engine().dcName()).isEqualTo("dc-a");
    assertThat(s.engine().scope()).isEqualTo(DiscoveryScope.watchAll());
    assertThat(s.engine().bind()).hasValueSatisfying(b -> assertThat(b.port()).isEqualTo(5561));
    assertThat(s.fileMode()).isFalse();
    assertThat(s.connectionRevision()).isEmpty();
  }

  @Test
  void noArgumentsWithDynDcIdServesNotTheDemo() {
    CommandLineOutcome out = parse(List.of(), env("DYN_DC_ID", "dc-a"));
    assertThat(out).isInstanceOf(CommandLineOutcome.Serve.class);
  }

  @Test
  void noArgumentsWithoutDynDcIdIsAnArgumentErrorNotTheDemo() {
    CommandLineOutcome.Failure f = failure(List.of(), env("DYN_RELAY_BIND", "127.0.0.1:5561"));
    assertThat(f.errors()).containsExactly("--dc-id or DYN_DC_ID is required");
    assertThat(f.exitCode()).isEqualTo(CommandLineOutcome.ARGUMENT_ERROR);
  }

  @Test
  void dcIdFlag() {
    assertThat(config(List.of("--dc-id", "us-west"), env()).dcName()).isEqualTo("us-west");
    assertThat(config(List.of("--dc-id=us-west"), env()).dcName()).isEqualTo("us-west");
  }

  @Test
  void dcIdEnv() {
    assertThat(config(List.of(), env("DYN_DC_ID", "test-dc")).dcName()).isEqualTo("test-dc");
  }

  @Test
  void dcIdFlagOverridesEnv() {
    assertThat(config(DC, env("DYN_DC_ID", "other")).dcName()).isEqualTo("dc-a");
  }

  @Test
  void dcIdFlagOverridesEvenABlankEnv() {
    assertThat(config(DC, env("DYN_DC_ID", " ")).dcName()).isEqualTo("dc-a");
  }

  @Test
  void repeatedSingleValuedFlagKeepsTheLastLikeArgparse() {
    assertThat(config(List.of("--dc-id", "x", "--dc-id", "dc-b"), env()).dcName()).isEqualTo("dc-b");
  }

  @Test
  void noScopeImpliesWatchAll() {
    assertThat(config(DC, env()).scope()).isEqualTo(DiscoveryScope.watchAll());
  }

  @Test
  void watchAllFlag() throws Exception {
    assertThat(config(List.of("--dc-id", "dc-a", "--watch-all"), env()).scope().isWatchAll()).isTrue();
  }

  @Test
  void namespacesFlagStripsItems() throws Exception {
    DiscoveryScope scope = config(List.of("--dc-id", "dc-a", "--namespaces", " prod-b , prod-a"), env()).scope();
    assertThat(scope).isEqualTo(DiscoveryScope.namespaces(List.of("prod-a", "prod-b")));
    assertThat(scope.matchesNamespace("prod-a")).isTrue();
    assertThat(scope.matchesNamespace("prod-c")).isFalse();
  }

  @Test
  void namespaceFilterFlagIsOneNamespace() throws Exception {
    assertThat(config(List.of("--dc-id", "dc-a", "--namespace-filter", "prod"), env()).scope())
        .isEqualTo(DiscoveryScope.namespaces(List.of("prod")));
  }

  @Test
  void namespacesEnv() throws Exception {
    assertThat(config(DC, env("DYN_RELAY_NAMESPACES", "a,b")).scope())
        .isEqualTo(DiscoveryScope.namespaces(List.of("a", "b")));
  }

  @Test
  void watchAllEnvFalseNextToNamespacesLeavesTheAllowlist() throws Exception {
    assertThat(config(DC, env("DYN_RELAY_NAMESPACES", "a", "DYN_RELAY_WATCH_ALL", "off")).scope())
        .isEqualTo(DiscoveryScope.namespaces(List.of("a")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "true", "yes", "on", " TRUE ", "On", "YeS"})
  void booleanTrueSpellings(String value) {
    assertThat(config(DC, env("DYN_RELAY_WATCH_ALL", value)).scope().isWatchAll()).isTrue();
    // A true value conflicts with an allowlist; a false one would not.
    assertThat(failure(DC, env("DYN_RELAY_WATCH_ALL", value, "DYN_RELAY_NAMESPACES", "a")).message())
        .isEqualTo("DYN_RELAY_NAMESPACES and DYN_RELAY_WATCH_ALL are mutually exclusive");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "false", "no", "off", " False", "NO "})
  void booleanFalseSpellings(String value) throws Exception {
    assertThat(config(DC, env("DYN_RELAY_WATCH_ALL", value, "DYN_RELAY_NAMESPACES", "a")).scope())
        .isEqualTo(DiscoveryScope.namespaces(List.of("a")));
    assertThat(failure(DC, env("DYN_RELAY_WATCH_ALL", value)).message())
        .isEqualTo("DYN_RELAY_WATCH_ALL=false requires DYN_RELAY_NAMESPACES");
  }

  @Test
  void cliScopeReplacesTheEnvScopeAsAWhole() throws Exception {
    // Env values that would be errors on their own are not read once a CLI scope is given.
    Map<String, String> env = env("DYN_RELAY_NAMESPACES", "x,,x", "DYN_RELAY_WATCH_ALL", "maybe");
    assertThat(config(List.of("--dc-id", "dc-a", "--namespaces", "a"), env).scope())
        .isEqualTo(DiscoveryScope.namespaces(List.of("a")));
    assertThat(config(List.of("--dc-id", "dc-a", "--namespace-filter", "b"), env).scope())
        .isEqualTo(DiscoveryScope.namespaces(List.of("b")));
    assertThat(config(List.of("--dc-id", "dc-a", "--watch-all"), env).scope().isWatchAll()).isTrue();
  }

  @Test
  void cliWatchAllOverridesEnvNamespaces() {
    assertThat(config(List.of("--dc-id", "dc-a", "--watch-all"), env("DYN_RELAY_NAMESPACES", "a")).scope()
        .isWatchAll()).isTrue();
  }

  @Test
  void endpointPrefixFlagIsRepeatable() {
    DiscoveryScope scope = config(List.of("--dc-id", "dc-a", "--endpoint-prefix", "prod-a.backend",
        "--endpoint-prefix", "prod-b"), env()).scope();
    assertThat(scope.isWatchAll()).isTrue();
    assertThat(scope.endpointPrefixes()).containsExactlyInAnyOrder("prod-a.backend", "prod-b");
  }

  @Test
  void endpointPrefixesEnv() {
    assertThat(config(DC, env("DYN_RELAY_ENDPOINT_PREFIXES", "a.b , c")).scope().endpointPrefixes())
        .containsExactlyInAnyOrder("a.b", "c");
  }

  @Test
  void cliPrefixListReplacesTheEnvList() {
    assertThat(config(List.of("--dc-id", "dc-a", "--endpoint-prefix", "a.b"),
        env("DYN_RELAY_ENDPOINT_PREFIXES", "c,,c")).scope().endpointPrefixes()).containsExactly("a.b");
  }

  @Test
  void prefixInsideTheAllowlistIsAccepted() {
    assertThat(config(List.of("--dc-id", "dc-a", "--namespaces", "prod-a,prod-b", "--endpoint-prefix",
        "prod-a.backend", "--endpoint-prefix", "prod-b"), env()).scope().endpointPrefixes()).hasSize(2);
  }

  @Test
  void expectedUniqueBlocksDefault() {
    assertThat(config(DC, env()).expectedUniqueBlocks()).isEqualTo(1_048_576L);
  }

  @Test
  void expectedUniqueBlocksFlag() {
    assertThat(config(List.of("--dc-id", "dc-a", "--expected-unique-blocks", "65536"), env())
        .expectedUniqueBlocks()).isEqualTo(65_536L);
  }

  @Test
  void expectedUniqueBlocksFlagOverridesEnvAndParsesLikePythonInt() {
    assertThat(config(List.of("--dc-id", "dc-a", "--expected-unique-blocks", " 65_536 "),
        env("DYN_RELAY_EXPECTED_UNIQUE_BLOCKS", "not a number")).expectedUniqueBlocks()).isEqualTo(65_536L);
  }

  @Test
  void expectedUniqueBlocksOverTheCbi1LimitIsAStartError() {
    CommandLineOutcome.Failure f = failure(List.of("--dc-id", "dc-a", "--expected-unique-blocks", "53687092"), env());
    assertThat(f.exitCode()).isEqualTo(CommandLineOutcome.START_ERROR);
    assertThat(f.message()).startsWith("--expected-unique-blocks 53687092 requires ")
        .endsWith(" CKF buckets, exceeding the CBI1 maximum 16777216");
  }

  @Test
  void bindFlagOverridesEnv() {
    assertThat(config(List.of("--dc-id", "dc-a", "--bind", "[::1]:5561"), env("DYN_RELAY_BIND", "")).bind())
        .hasValueSatisfying(b -> assertThat(b.isIpv6()).isTrue());
  }

  @Test
  void bindEnv() {
    RelayEngineConfig c = config(DC, env("DYN_RELAY_BIND", "127.0.0.1:5561"));
    assertThat(c.wanEnabled()).isTrue();
    assertThat(c.bind().orElseThrow().text()).isEqualTo("127.0.0.1:5561");
  }

  @Test
  void noBindMeansWanOff() {
    assertThat(config(DC, env()).wanEnabled()).isFalse();
  }

  @Test
  void wanKnobIsAcceptedWithTheBindFlag() {
    assertThat(config(List.of("--dc-id", "dc-a", "--bind", "127.0.0.1:0"),
        env("DYN_RELAY_LOAD_WINDOW_MS", "250")).value(RelayConfigKey.LOAD_WINDOW_MS)).isEqualTo(250L);
  }

  @Test
  void everySpecTuningVariableIsReadWithItsWanRule() {
    for (Map.Entry<String, Boolean> e : TUNING.entrySet()) {
      RelayConfigKey key = keyOf(e.getKey());
      assertThat(key.isWanOnly()).as(e.getKey() + " WAN-only").isEqualTo(e.getValue());
      long value = key.defaultValue() + 1;
      RelayEngineConfig c = config(List.of("--dc-id", "dc-a", "--bind", "127.0.0.1:0"),
          env(e.getKey(), Long.toString(value)));
      assertThat(c.value(key)).as(e.getKey()).isEqualTo(value);
      if (e.getValue()) {
        assertThat(failure(DC, env(e.getKey(), Long.toString(value))).message())
            .isEqualTo(e.getKey() + " requires --bind or DYN_RELAY_BIND");
      } else {
        assertThat(config(DC, env(e.getKey(), Long.toString(value))).value(key)).isEqualTo(value);
      }
      assertThat(failure(DC, env("DYN_RELAY_BIND", "127.0.0.1:0", e.getKey(), "x")).message())
          .isEqualTo(e.getKey() + ": invalid literal for int() with base 10: 'x'");
      assertThat(failure(DC, env("DYN_RELAY_BIND", "127.0.0.1:0", e.getKey(), "0")).message())
          .isEqualTo(e.getKey() + ": must be a positive integer");
    }
  }

  @Test
  void tuningDefaultsMatchTheSpec() {
    RelayEngineConfig c = config(List.of("--dc-id", "dc-a", "--bind", "127.0.0.1:0"), env());
    assertThat(c.publicationThreshold()).isEqualTo(16);
    assertThat(c.publicationDelayMs()).isEqualTo(1L);
    assertThat(c.recoveryAttemptTimeoutMs()).isEqualTo(30_000L);
    assertThat(c.maxMessageBytes()).isEqualTo(8_388_608);
    assertThat(c.value(RelayConfigKey.KEEPALIVE_INTERVAL_MS)).isEqualTo(20_000L);
    assertThat(c.value(RelayConfigKey.KEEPALIVE_TIMEOUT_MS)).isEqualTo(10_000L);
    assertThat(c.value(RelayConfigKey.SNAPSHOT_PROGRESS_TIMEOUT_MS)).isEqualTo(60_000L);
    assertThat(c.value(RelayConfigKey.LOAD_WINDOW_MS)).isEqualTo(1_000L);
    assertThat(c.loadFanoutCapacity()).isEqualTo(16);
    assertThat(c.publicationQueueBytes()).isEqualTo(16_777_216L);
    assertThat(c.value(RelayConfigKey.PUBLICATION_ENCODING_CONCURRENCY)).isEqualTo(2L);
    assertThat(c.value(RelayConfigKey.MAX_CATALOG_SUBSCRIBERS)).isEqualTo(64L);
  }

  @Test
  void unknownRelayVariablesAreIgnored() {
    assertThat(config(DC, env("DYN_RELAY_PUBLICATION_TRESHOLD", "nonsense"))).isEqualTo(config(DC, env()));
  }

  @Test
  void sourcesFileSelectsFileMode() {
    RelaySettings s = serve(List.of("--dc-id", "dc-a", "--sources-file", "/etc/kvrelay/sources.json"), env());
    assertThat(s.fileMode()).isTrue();
    assertThat(s.sourcesFile()).contains(Path.of("/etc/kvrelay/sources.json"));
    assertThat(s.connectionRevision()).isEmpty();
    assertThat(s.engine().scope()).isEqualTo(DiscoveryScope.watchAll());
  }

  @Test
  void connectionRevisionIsReadInFileMode() {
    RelaySettings s = serve(List.of("--dc-id", "dc-a", "--sources-file", "s.json"),
        env("DYN_RELAY_CONNECTION_REVISION", "connection"));
    assertThat(s.connectionRevision()).contains("connection");
  }

  @Test
  void connectionRevisionIsNotReadInDiscoveryMode() {
    RelaySettings s = serve(DC, env("DYN_RELAY_CONNECTION_REVISION", ""));
    assertThat(s.connectionRevision()).isEmpty();
    assertThat(s.fileMode()).isFalse();
  }

  @Test
  void helpPrintsUsageWithEveryFlag() {
    for (String flag : List.of("--help", "-h")) {
      CommandLineOutcome out = parse(List.of(flag), env());
      assertThat(out).isInstanceOf(CommandLineOutcome.Help.class);
      String text = ((CommandLineOutcome.Help) out).text();
      assertThat(text).contains("Dynamo DC-scoped KV Relay", "demo");
      for (String f : List.of("--dc-id", "--namespaces", "--namespace-filter", "--watch-all", "--endpoint-prefix",
          "--expected-unique-blocks", "--bind", "--sources-file")) {
        assertThat(text).contains(f);
      }
    }
  }

  @Test
  void helpWinsOverOtherErrors() {
    assertThat(parse(List.of("--namespaces", "a", "--watch-all", "--help"), env()))
        .isInstanceOf(CommandLineOutcome.Help.class);
  }

  @Test
  void demoSubcommandWithoutBind() {
    CommandLineOutcome out = parse(List.of("demo"), env());
    assertThat(out).isEqualTo(new CommandLineOutcome.Demo(Optional.empty(), false, LogSettings.DEFAULT));
    assertThat(((CommandLineOutcome.Demo) out).bindOrDefault().text()).isEqualTo("127.0.0.1:5561");
  }

  @Test
  void demoSelfCheckIsExplicitAndTakesNoBind() {
    assertThat(parse(List.of("demo", "--self-check"), env()))
        .isEqualTo(new CommandLineOutcome.Demo(Optional.empty(), true, LogSettings.DEFAULT));
    CommandLineOutcome.Failure f = failure(List.of("demo", "--self-check", "--bind", "127.0.0.1:0"), env());
    assertThat(f.message()).isEqualTo("demo --self-check does not take --bind");
    assertThat(f.exitCode()).isEqualTo(2);
  }

  @Test
  void logLevelFlagSetsTheRootLevelOverDynLogAndKeepsItsLoggerItems() {
    CommandLineOutcome out = parse(List.of("--dc-id", "dc-a", "--log-level", "DEBUG"),
        env("DYN_LOG", "warn, dev.kvrelay.engine=trace,io.grpc=Warning"));
    assertThat(out).isInstanceOf(CommandLineOutcome.Serve.class);
    LogSettings log = ((CommandLineOutcome.Serve) out).log();
    assertThat(log.rootLevel()).hasValue("debug");
    assertThat(log.loggerLevels()).containsExactly(Map.entry("dev.kvrelay.engine", "trace"), Map.entry("io.grpc", "warn"));
  }

  @Test
  void dynLogAloneSetsTheRootLevelAndUnsetMeansTheConfigDefaults() {
    assertThat(((CommandLineOutcome.Serve) parse(DC, env("DYN_LOG", "error"))).log().rootLevel()).hasValue("error");
    assertThat(((CommandLineOutcome.Serve) parse(DC, env())).log()).isEqualTo(LogSettings.DEFAULT);
  }

  @Test
  void logLevelWorksBeforeAndAfterDemo() {
    CommandLineOutcome before = parse(List.of("--log-level", "warn", "demo"), env());
    CommandLineOutcome after = parse(List.of("demo", "--log-level", "error"), env("DYN_LOG", "debug"));
    assertThat(((CommandLineOutcome.Demo) before).log().rootLevel()).hasValue("warn");
    assertThat(((CommandLineOutcome.Demo) after).log().rootLevel()).hasValue("error");
  }

  @Test
  void badLogLevelsAreArgumentErrors() {
    CommandLineOutcome.Failure flag = failure(List.of("--dc-id", "dc-a", "--log-level", "loud"), env());
    assertThat(flag.message()).isEqualTo(
        "argument --log-level: invalid level 'loud' (choose from trace, debug, info, warn, error, off)");
    assertThat(flag.exitCode()).isEqualTo(2);
    CommandLineOutcome.Failure dynLog = failure(DC, env("DYN_LOG", "dev.kvrelay=verbose"));
    assertThat(dynLog.message()).isEqualTo(
        "DYN_LOG: invalid level 'verbose' (choose from trace, debug, info, warn, error, off)");
    assertThat(failure(DC, env("DYN_LOG", "=debug")).message()).isEqualTo("DYN_LOG: item '=debug' has no logger name");
  }

  @Test
  void demoSubcommandWithBindIgnoresTheRelayEnvironment() {
    CommandLineOutcome out = parse(List.of("demo", "--bind", "127.0.0.1:0"), env("DYN_RELAY_WATCH_ALL", "maybe"));
    assertThat(out).isInstanceOf(CommandLineOutcome.Demo.class);
    assertThat(((CommandLineOutcome.Demo) out).bind()).hasValueSatisfying(b -> assertThat(b.port()).isZero());
  }

  @Test
  void demoHelp() {
    CommandLineOutcome out = parse(List.of("demo", "--help"), env());
    assertThat(out).isInstanceOf(CommandLineOutcome.Help.class);
    assertThat(((CommandLineOutcome.Help) out).text()).contains("--bind", "demo");
  }

  @Test
  void atFileArgumentsAreNotExpanded() {
    // picocli would read "@file" as an argument file; argparse does not (fromfile_prefix_chars unset).
    assertThat(failure(List.of("--dc-id", "dc-a", "@/etc/passwd"), env()).message())
        .isEqualTo("Unmatched argument at index 2: '@/etc/passwd'");
  }

  @Test
  void failureKeepsEveryEngineViolation() {
    CommandLineOutcome.Failure f = failure(DC, env("DYN_RELAY_PUBLICATION_THRESHOLD", "0",
        "DYN_RELAY_PUBLICATION_DELAY_MS", "x"));
    assertThat(f.errors()).containsExactlyInAnyOrder("DYN_RELAY_PUBLICATION_THRESHOLD: must be a positive integer",
        "DYN_RELAY_PUBLICATION_DELAY_MS: invalid literal for int() with base 10: 'x'");
  }

  @Test
  void argumentErrorsWinOverStartErrors() {
    CommandLineOutcome.Failure f = failure(List.of("--dc-id", "dc-a", "--bind", "nonsense"),
        env("DYN_RELAY_PUBLICATION_THRESHOLD", "0"));
    assertThat(f.exitCode()).isEqualTo(CommandLineOutcome.ARGUMENT_ERROR);
    assertThat(f.errors()).containsExactly("DYN_RELAY_PUBLICATION_THRESHOLD: must be a positive integer");
  }
}
