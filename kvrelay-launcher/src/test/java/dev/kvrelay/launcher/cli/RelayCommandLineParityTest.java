package dev.kvrelay.launcher.cli;

import static dev.kvrelay.launcher.cli.CliFixtures.env;
import static dev.kvrelay.launcher.cli.CliFixtures.failure;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The error half of the parity table in {@code kvrelay-launcher/CLI.md}: every rejected flag or variable
 * combination with its exact text (producer.md §7.1–§7.4, plugins-wire.md §5) and exit code (§7.6).
 */
class RelayCommandLineParityTest {
  private static final List<String> DC = List.of("--dc-id", "dc-a");

  private static Arguments row(String name, List<String> args, Map<String, String> env, String text, int exit) {
    return Arguments.of(name, args, env, text, exit);
  }

  private static List<String> dc(String... more) {
    return Stream.concat(DC.stream(), Stream.of(more)).toList();
  }

  static Stream<Arguments> rejections() {
    String revision513 = "r".repeat(513);
    return Stream.of(
        // --dc-id / DYN_DC_ID
        row("no arguments, no DYN_DC_ID", List.of(), env(), "--dc-id or DYN_DC_ID is required", 2),
        row("empty --dc-id", List.of("--dc-id", ""), env(), "--dc-id or DYN_DC_ID is required", 2),
        row("blank --dc-id", List.of("--dc-id", " \t"), env(), "--dc-id or DYN_DC_ID is required", 2),
        row("empty DYN_DC_ID", List.of(), env("DYN_DC_ID", ""), "--dc-id or DYN_DC_ID is required", 2),
        row("blank DYN_DC_ID", List.of(), env("DYN_DC_ID", "  "), "--dc-id or DYN_DC_ID is required", 2),
        row("--dc-id with leading space", List.of("--dc-id", " dc-a"), env(),
            "DC ID must not contain surrounding whitespace", 2),
        row("DYN_DC_ID with trailing space", List.of(), env("DYN_DC_ID", "dc-a "),
            "DC ID must not contain surrounding whitespace", 2),
        row("DYN_DC_ID with a lone surrogate (start error)", List.of(), env("DYN_DC_ID", "dc\uD800"),
            "KV DC Relay dc_id must be valid UTF-8 text", 1),
        // CLI scope exclusions
        row("--namespaces with --watch-all", dc("--namespaces", "a", "--watch-all"), env(),
            RelayCommandLine.SCOPE_FLAGS_EXCLUSIVE, 2),
        row("--namespaces with --namespace-filter", dc("--namespaces", "a", "--namespace-filter", "b"), env(),
            RelayCommandLine.SCOPE_FLAGS_EXCLUSIVE, 2),
        row("--namespace-filter with --watch-all", dc("--namespace-filter", "a", "--watch-all"), env(),
            RelayCommandLine.SCOPE_FLAGS_EXCLUSIVE, 2),
        // CSV lists
        row("--namespaces empty item", dc("--namespaces", "a,,b"), env(),
            "--namespaces requires a comma-separated list of non-empty values", 2),
        row("--namespaces empty", dc("--namespaces", ""), env(),
            "--namespaces requires a comma-separated list of non-empty values", 2),
        row("--namespaces repeated after strip", dc("--namespaces", "a, a"), env(),
            "--namespaces must not contain duplicate values", 2),
        row("DYN_RELAY_NAMESPACES empty item", DC, env("DYN_RELAY_NAMESPACES", "a, "),
            "DYN_RELAY_NAMESPACES requires a comma-separated list of non-empty values", 2),
        row("DYN_RELAY_NAMESPACES repeated", DC, env("DYN_RELAY_NAMESPACES", "a,b,a"),
            "DYN_RELAY_NAMESPACES must not contain duplicate values", 2),
        row("DYN_RELAY_ENDPOINT_PREFIXES empty item", DC, env("DYN_RELAY_ENDPOINT_PREFIXES", "a.b,,c"),
            "DYN_RELAY_ENDPOINT_PREFIXES requires a comma-separated list of non-empty values", 2),
        row("DYN_RELAY_ENDPOINT_PREFIXES repeated", DC, env("DYN_RELAY_ENDPOINT_PREFIXES", "a.b, a.b"),
            "DYN_RELAY_ENDPOINT_PREFIXES must not contain duplicate values", 2),
        // --namespace-filter
        row("--namespace-filter empty", dc("--namespace-filter", ""), env(),
            "--namespace-filter must be non-empty and have no surrounding whitespace", 2),
        row("--namespace-filter with whitespace", dc("--namespace-filter", "a "), env(),
            "--namespace-filter must be non-empty and have no surrounding whitespace", 2),
        row("--namespace-filter with a comma (decision)", dc("--namespace-filter", "a,b"), env(),
            "--namespace-filter takes a single namespace (no ',')", 2),
        // --endpoint-prefix
        row("--endpoint-prefix empty", dc("--endpoint-prefix", ""), env(),
            "endpoint prefixes must be non-empty and have no surrounding whitespace", 2),
        row("--endpoint-prefix with whitespace", dc("--endpoint-prefix", " a.b"), env(),
            "endpoint prefixes must be non-empty and have no surrounding whitespace", 2),
        row("--endpoint-prefix repeated", dc("--endpoint-prefix", "a.b", "--endpoint-prefix", "a.b"), env(),
            "endpoint prefixes must not contain duplicates", 2),
        row("--endpoint-prefix outside --namespaces", dc("--namespaces", "a", "--endpoint-prefix", "b.x"), env(),
            "endpoint prefixes must be inside the selected namespaces", 2),
        row("--endpoint-prefix sharing only a text prefix", dc("--namespaces", "a", "--endpoint-prefix", "ab"),
            env(), "endpoint prefixes must be inside the selected namespaces", 2),
        row("--endpoint-prefix outside DYN_RELAY_NAMESPACES", dc("--endpoint-prefix", "b"),
            env("DYN_RELAY_NAMESPACES", "a"), "endpoint prefixes must be inside the selected namespaces", 2),
        row("DYN_RELAY_ENDPOINT_PREFIXES outside DYN_RELAY_NAMESPACES", DC,
            env("DYN_RELAY_NAMESPACES", "a", "DYN_RELAY_ENDPOINT_PREFIXES", "a.x,b"),
            "endpoint prefixes must be inside the selected namespaces", 2),
        // env scope
        row("DYN_RELAY_NAMESPACES with a true DYN_RELAY_WATCH_ALL", DC,
            env("DYN_RELAY_NAMESPACES", "a", "DYN_RELAY_WATCH_ALL", "yes"),
            "DYN_RELAY_NAMESPACES and DYN_RELAY_WATCH_ALL are mutually exclusive", 2),
        row("DYN_RELAY_WATCH_ALL=false alone", DC, env("DYN_RELAY_WATCH_ALL", "false"),
            "DYN_RELAY_WATCH_ALL=false requires DYN_RELAY_NAMESPACES", 2),
        row("DYN_RELAY_WATCH_ALL not a boolean", DC, env("DYN_RELAY_WATCH_ALL", "maybe"),
            "DYN_RELAY_WATCH_ALL must be a boolean value", 2),
        row("DYN_RELAY_WATCH_ALL empty", DC, env("DYN_RELAY_WATCH_ALL", ""),
            "DYN_RELAY_WATCH_ALL must be a boolean value", 2),
        // --bind / DYN_RELAY_BIND
        row("--bind empty", dc("--bind", ""), env(), "--bind must not be empty", 2),
        row("--bind blank", dc("--bind", "  "), env(), "--bind must not be empty", 2),
        row("DYN_RELAY_BIND empty", DC, env("DYN_RELAY_BIND", ""), "--bind must not be empty", 2),
        row("--bind not an address (start error)", dc("--bind", "nonsense"), env(),
            "invalid KV DC Relay bind address", 1),
        row("--bind host name (start error)", dc("--bind", "localhost:5561"), env(),
            "invalid KV DC Relay bind address", 1),
        row("DYN_RELAY_BIND without port (start error)", DC, env("DYN_RELAY_BIND", "127.0.0.1"),
            "invalid KV DC Relay bind address", 1),
        // WAN-only without bind, integers, bounds
        row("WAN knob without bind", DC, env("DYN_RELAY_KEEPALIVE_INTERVAL_MS", "5000"),
            "DYN_RELAY_KEEPALIVE_INTERVAL_MS requires --bind or DYN_RELAY_BIND", 2),
        row("DYN_RELAY_PUBLICATION_THRESHOLD not an int", DC, env("DYN_RELAY_PUBLICATION_THRESHOLD", "1.5"),
            "DYN_RELAY_PUBLICATION_THRESHOLD: invalid literal for int() with base 10: '1.5'", 2),
        row("DYN_RELAY_PUBLICATION_DELAY_MS zero", DC, env("DYN_RELAY_PUBLICATION_DELAY_MS", "0"),
            "DYN_RELAY_PUBLICATION_DELAY_MS: must be a positive integer", 2),
        row("DYN_RELAY_RECOVERY_ATTEMPT_TIMEOUT_MS negative", DC,
            env("DYN_RELAY_RECOVERY_ATTEMPT_TIMEOUT_MS", "-3"),
            "DYN_RELAY_RECOVERY_ATTEMPT_TIMEOUT_MS: must be a positive integer", 2),
        row("DYN_RELAY_MAX_MESSAGE_BYTES below minimum (start error)", dc("--bind", "127.0.0.1:5561"),
            env("DYN_RELAY_MAX_MESSAGE_BYTES", "4259903"), "DYN_RELAY_MAX_MESSAGE_BYTES: must be at least 4259904", 1),
        row("DYN_RELAY_LOAD_FANOUT_CAPACITY above maximum (start error)", dc("--bind", "127.0.0.1:5561"),
            env("DYN_RELAY_LOAD_FANOUT_CAPACITY", "65537"),
            "DYN_RELAY_LOAD_FANOUT_CAPACITY: must be at most 65536, got 65537", 1),
        row("--expected-unique-blocks not an int", dc("--expected-unique-blocks", "many"), env(),
            "argument --expected-unique-blocks: invalid _positive_int value: 'many'", 2),
        row("--expected-unique-blocks zero", dc("--expected-unique-blocks", "0"), env(),
            "argument --expected-unique-blocks: must be a positive integer", 2),
        row("--expected-unique-blocks negative", dc("--expected-unique-blocks=-7"), env(),
            "argument --expected-unique-blocks: must be a positive integer", 2),
        row("DYN_RELAY_EXPECTED_UNIQUE_BLOCKS not an int", DC, env("DYN_RELAY_EXPECTED_UNIQUE_BLOCKS", "1e6"),
            "DYN_RELAY_EXPECTED_UNIQUE_BLOCKS: invalid literal for int() with base 10: '1e6'", 2),
        row("DYN_RELAY_EXPECTED_UNIQUE_BLOCKS zero", DC, env("DYN_RELAY_EXPECTED_UNIQUE_BLOCKS", "0"),
            "DYN_RELAY_EXPECTED_UNIQUE_BLOCKS: must be a positive integer", 2),
        // file mode
        row("--sources-file empty", dc("--sources-file", ""), env(), "--sources-file must not be empty", 2),
        row("--sources-file with --namespaces", dc("--sources-file", "s.json", "--namespaces", "a"), env(),
            RelayCommandLine.SOURCES_FILE_WITH_FILTERS, 2),
        row("--sources-file with --namespace-filter", dc("--sources-file", "s.json", "--namespace-filter", "a"),
            env(), RelayCommandLine.SOURCES_FILE_WITH_FILTERS, 2),
        row("--sources-file with --watch-all", dc("--sources-file", "s.json", "--watch-all"), env(),
            RelayCommandLine.SOURCES_FILE_WITH_FILTERS, 2),
        row("--sources-file with --endpoint-prefix", dc("--sources-file", "s.json", "--endpoint-prefix", "a"),
            env(), RelayCommandLine.SOURCES_FILE_WITH_FILTERS, 2),
        row("--sources-file with DYN_RELAY_NAMESPACES present (empty)", dc("--sources-file", "s.json"),
            env("DYN_RELAY_NAMESPACES", ""), RelayCommandLine.SOURCES_FILE_WITH_FILTERS, 2),
        row("--sources-file with DYN_RELAY_WATCH_ALL=false", dc("--sources-file", "s.json"),
            env("DYN_RELAY_WATCH_ALL", "false"), RelayCommandLine.SOURCES_FILE_WITH_FILTERS, 2),
        row("--sources-file with DYN_RELAY_ENDPOINT_PREFIXES present (empty)", dc("--sources-file", "s.json"),
            env("DYN_RELAY_ENDPOINT_PREFIXES", ""), RelayCommandLine.SOURCES_FILE_WITH_FILTERS, 2),
        row("DYN_RELAY_CONNECTION_REVISION empty in file mode", dc("--sources-file", "s.json"),
            env("DYN_RELAY_CONNECTION_REVISION", ""), "DYN_RELAY_CONNECTION_REVISION must not be empty", 2),
        row("DYN_RELAY_CONNECTION_REVISION blank in file mode", dc("--sources-file", "s.json"),
            env("DYN_RELAY_CONNECTION_REVISION", " "), "DYN_RELAY_CONNECTION_REVISION must not be empty", 2),
        row("DYN_RELAY_CONNECTION_REVISION over 512 bytes", dc("--sources-file", "s.json"),
            env("DYN_RELAY_CONNECTION_REVISION", revision513), "DYN_RELAY_CONNECTION_REVISION must be at most 512 bytes",
            2),
        // picocli-level argument errors
        row("unknown option", dc("--frontend-port", "8000"), env(), "Unknown options: '--frontend-port', '8000'", 2),
        row("positional argument", dc("extra"), env(), "Unmatched argument at index 2: 'extra'", 2),
        row("--dc-id without value", List.of("--dc-id"), env(),
            "Missing required parameter for option '--dc-id' (DC_ID)", 2),
        row("--watch-all with a value", dc("--watch-all=false"), env(),
            "option '--watch-all' should be specified without 'false' parameter", 2),
        // demo
        row("demo with an empty bind", List.of("demo", "--bind", ""), env(), "--bind must not be empty", 2),
        row("demo with a bad bind", List.of("demo", "--bind", "here"), env(), "invalid KV DC Relay bind address", 2),
        row("relay flags before demo", List.of("--dc-id", "dc-a", "demo"), env(),
            "demo does not take the relay's flags", 2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejections")
  void rejectsWithTheSpecText(String name, List<String> args, Map<String, String> env, String text, int exit) {
    CommandLineOutcome.Failure f = failure(args, env);
    assertThat(f.message()).isEqualTo(text);
    assertThat(f.exitCode()).isEqualTo(exit);
  }
}
