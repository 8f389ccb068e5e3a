package dev.kvrelay.launcher.cli;

import dev.kvrelay.engine.BindAddress;
import dev.kvrelay.engine.RelayConfigException;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.RelayConfigViolation;
import dev.kvrelay.engine.RelayEngineConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Stateless and thread-safe: parses the stock relay's arguments and environment into a {@link
 * CommandLineOutcome} ({@code producer.md} §7.1–§7.4, §7.6; {@code plugins-wire.md} §5).
 *
 * <p>How it works: picocli reads the flags; the flag values are checked where only the raw flag text can
 * be (upstream's CLI texts: CSV items, the legacy namespace filter, endpoint prefixes, blank values), then
 * composed over the environment — a flag replaces its variable, a CLI scope replaces the whole env scope,
 * a CLI prefix list replaces the env list — and the composed environment goes through {@link
 * RelayEngineConfig#fromEnvironment(Map)}, which owns the remaining rules (booleans, integers, tuning
 * knobs, WAN-only knobs, bind address, scope resolution, CKF sizing). Its violations are rendered in
 * upstream's CLI wording where the spec gives one. Argument errors exit 2; the engine's start-time rules
 * (bind address syntax, bounds, CKF bucket limit, DC id text) exit 1, as upstream's Rust start would.
 */
public final class RelayCommandLine {
  /** The mutual-exclusion text of the three CLI scope flags. */
  public static final String SCOPE_FLAGS_EXCLUSIVE =
      "--namespace-filter, --namespaces, and --watch-all are mutually exclusive";
  /** File mode next to any discovery filter. */
  public static final String SOURCES_FILE_WITH_FILTERS = "--sources-file cannot be combined with discovery filters";

  static final String DC_ID_REQUIRED = "--dc-id or DYN_DC_ID is required";
  static final String DC_ID_WHITESPACE = "DC ID must not contain surrounding whitespace";
  static final String BIND_EMPTY = "--bind must not be empty";
  static final String SOURCES_FILE_EMPTY = "--sources-file must not be empty";
  static final String CONNECTION_REVISION_EMPTY = "DYN_RELAY_CONNECTION_REVISION must not be empty";
  static final String NAMESPACE_FILTER_INVALID =
      "--namespace-filter must be non-empty and have no surrounding whitespace";
  static final String NAMESPACE_FILTER_COMMA = "--namespace-filter takes a single namespace (no ',')";
  static final String PREFIXES_INVALID = "endpoint prefixes must be non-empty and have no surrounding whitespace";
  static final String PREFIXES_DUPLICATE = "endpoint prefixes must not contain duplicates";
  static final String PREFIXES_OUTSIDE = "endpoint prefixes must be inside the selected namespaces";
  static final String ENV_SCOPE_EXCLUSIVE = "DYN_RELAY_NAMESPACES and DYN_RELAY_WATCH_ALL are mutually exclusive";
  static final String DEMO_WITH_RELAY_FLAGS = "demo does not take the relay's flags";
  static final String SELF_CHECK_WITH_BIND = "demo --self-check does not take --bind";
  /** Upper bound of the configured connection revision in UTF-8 bytes ({@code producer.md} §8.2). */
  static final int MAX_CONNECTION_REVISION_BYTES = 512;

  static final String ENV_DC_ID = "DYN_DC_ID";
  static final String ENV_NAMESPACES = "DYN_RELAY_NAMESPACES";
  static final String ENV_WATCH_ALL = "DYN_RELAY_WATCH_ALL";
  static final String ENV_PREFIXES = "DYN_RELAY_ENDPOINT_PREFIXES";
  static final String ENV_BIND = "DYN_RELAY_BIND";
  static final String ENV_EXPECTED = "DYN_RELAY_EXPECTED_UNIQUE_BLOCKS";
  static final String ENV_CONNECTION_REVISION = "DYN_RELAY_CONNECTION_REVISION";

  /** Violation reasons that upstream reports from its Rust start (exit 1), not from argparse. */
  private static final Set<RelayConfigViolation.Reason> START_REASONS = EnumSet.of(
      RelayConfigViolation.Reason.MALFORMED_TEXT, RelayConfigViolation.Reason.BELOW_MINIMUM,
      RelayConfigViolation.Reason.ABOVE_MAXIMUM, RelayConfigViolation.Reason.DEADLINE_OVERFLOW,
      RelayConfigViolation.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM,
      RelayConfigViolation.Reason.INVALID_BIND_ADDRESS);

  private RelayCommandLine() {}

  /**
   * Parses {@code args} over {@code env}; never throws for bad input and never reads the process
   * environment or the file system.
   *
   * @param args the process arguments
   * @param env the process environment (e.g. {@code System.getenv()})
   * @return the outcome; a {@link CommandLineOutcome.Failure} carries the exact texts and the exit code
   */
  public static CommandLineOutcome parse(String[] args, Map<String, String> env) {
    RelayOptions relay = new RelayOptions();
    CommandLine cli = commandLine(relay);
    ParseResult result;
    try {
      result = cli.parseArgs(args.clone());
    } catch (ParameterException e) {
      return CommandLineOutcome.Failure.argument(String.valueOf(e.getMessage()));
    }
    if (cli.isUsageHelpRequested()) {
      return new CommandLineOutcome.Help(cli.getUsageMessage());
    }
    ParseResult sub = result.subcommand();
    if (sub != null) {
      CommandLine demo = sub.commandSpec().commandLine();
      if (demo.isUsageHelpRequested()) {
        return new CommandLineOutcome.Help(demo.getUsageMessage());
      }
      if (relay.anyRelayFlag()) {
        return CommandLineOutcome.Failure.argument(DEMO_WITH_RELAY_FLAGS);
      }
      DemoOptions d = demo.getCommand();
      LogSettings log;
      try {
        log = LogSettings.of(d.logLevel != null ? d.logLevel : relay.logLevel, env.get(LogSettings.ENV));
      } catch (IllegalArgumentException e) {
        return CommandLineOutcome.Failure.argument(String.valueOf(e.getMessage()));
      }
      return demo(d, log);
    }
    LogSettings log;
    try {
      log = LogSettings.of(relay.logLevel, env.get(LogSettings.ENV));
    } catch (IllegalArgumentException e) {
      return CommandLineOutcome.Failure.argument(String.valueOf(e.getMessage()));
    }
    CommandLineOutcome outcome = relay(relay, env);
    return outcome instanceof CommandLineOutcome.Serve serve
        ? new CommandLineOutcome.Serve(serve.settings(), log) : outcome;
  }

  /** The usage text of the relay command. */
  public static String usage() {
    return commandLine(new RelayOptions()).getUsageMessage();
  }

  private static CommandLine commandLine(RelayOptions relay) {
    CommandLine cli = new CommandLine(relay);
    // argparse semantics: a repeated single-valued option keeps the last value; no @file expansion.
    cli.setOverwrittenOptionsAllowed(true);
    cli.setExpandAtFiles(false);
    return cli;
  }

  private static CommandLineOutcome demo(DemoOptions demo, LogSettings log) {
    if (demo.selfCheck && demo.bind != null) {
      return CommandLineOutcome.Failure.argument(SELF_CHECK_WITH_BIND);
    }
    if (demo.bind == null) {
      return new CommandLineOutcome.Demo(Optional.empty(), demo.selfCheck, log);
    }
    if (PythonText.isBlank(demo.bind)) {
      return CommandLineOutcome.Failure.argument(BIND_EMPTY);
    }
    Optional<BindAddress> bind = BindAddress.tryParse(demo.bind);
    if (bind.isEmpty()) {
      return CommandLineOutcome.Failure.argument(BindAddress.INVALID_MESSAGE);
    }
    return new CommandLineOutcome.Demo(bind, false, log);
  }

  private static CommandLineOutcome relay(RelayOptions o, Map<String, String> env) {
    Map<String, String> composed = new HashMap<>(env);
    // 1. DC id (producer.md §7.1): the flag over DYN_DC_ID.
    String dc = o.dcId != null ? o.dcId : env.get(ENV_DC_ID);
    if (dc == null || PythonText.isBlank(dc)) {
      return CommandLineOutcome.Failure.argument(DC_ID_REQUIRED);
    }
    if (PythonText.hasSurroundingWhitespace(dc)) {
      return CommandLineOutcome.Failure.argument(DC_ID_WHITESPACE);
    }
    composed.put(ENV_DC_ID, dc);
    // 2. The CLI scope: at most one of the three flags.
    int cliScopes = (o.namespaces != null ? 1 : 0) + (o.namespaceFilter != null ? 1 : 0) + (o.watchAll ? 1 : 0);
    if (cliScopes > 1) {
      return CommandLineOutcome.Failure.argument(SCOPE_FLAGS_EXCLUSIVE);
    }
    // 3. File mode (producer.md §7.1, §8.2).
    Optional<Path> sourcesFile = Optional.empty();
    Optional<String> revision = Optional.empty();
    if (o.sourcesFile != null) {
      if (PythonText.isBlank(o.sourcesFile)) {
        return CommandLineOutcome.Failure.argument(SOURCES_FILE_EMPTY);
      }
      if (cliScopes > 0 || o.endpointPrefixes != null || env.containsKey(ENV_NAMESPACES)
          || env.containsKey(ENV_WATCH_ALL) || env.containsKey(ENV_PREFIXES)) {
        return CommandLineOutcome.Failure.argument(SOURCES_FILE_WITH_FILTERS);
      }
      try {
        sourcesFile = Optional.of(Path.of(o.sourcesFile));
      } catch (InvalidPathException e) {
        return CommandLineOutcome.Failure.argument("--sources-file is not a valid path: " + e.getReason());
      }
      String rev = env.get(ENV_CONNECTION_REVISION);
      if (rev != null) {
        if (PythonText.isBlank(rev)) {
          return CommandLineOutcome.Failure.argument(CONNECTION_REVISION_EMPTY);
        }
        if (rev.getBytes(StandardCharsets.UTF_8).length > MAX_CONNECTION_REVISION_BYTES) {
          return CommandLineOutcome.Failure.argument(
              ENV_CONNECTION_REVISION + " must be at most " + MAX_CONNECTION_REVISION_BYTES + " bytes");
        }
        revision = Optional.of(rev);
      }
    }
    // 4. Scope: a CLI scope replaces the env scope as a whole; the chosen CSV list is checked here.
    if (cliScopes == 1) {
      composed.remove(ENV_NAMESPACES);
      composed.remove(ENV_WATCH_ALL);
      if (o.namespaces != null) {
        List<String> items = new ArrayList<>();
        String error = csv(o.namespaces, "--namespaces", items);
        if (error != null) {
          return CommandLineOutcome.Failure.argument(error);
        }
        composed.put(ENV_NAMESPACES, String.join(",", items));
      } else if (o.namespaceFilter != null) {
        String ns = o.namespaceFilter;
        if (PythonText.isBlank(ns) || PythonText.hasSurroundingWhitespace(ns)) {
          return CommandLineOutcome.Failure.argument(NAMESPACE_FILTER_INVALID);
        }
        if (ns.indexOf(',') >= 0) {
          return CommandLineOutcome.Failure.argument(NAMESPACE_FILTER_COMMA);
        }
        composed.put(ENV_NAMESPACES, ns);
      } else {
        composed.put(ENV_WATCH_ALL, "true");
      }
    } else if (env.containsKey(ENV_NAMESPACES)) {
      String error = csv(env.get(ENV_NAMESPACES), ENV_NAMESPACES, new ArrayList<>());
      if (error != null) {
        return CommandLineOutcome.Failure.argument(error);
      }
    }
    // 5. Endpoint prefixes: the CLI list replaces the env list.
    if (o.endpointPrefixes != null) {
      Set<String> seen = new HashSet<>();
      for (String p : o.endpointPrefixes) {
        if (PythonText.isBlank(p) || PythonText.hasSurroundingWhitespace(p) || p.indexOf(',') >= 0) {
          return CommandLineOutcome.Failure.argument(PREFIXES_INVALID);
        }
        if (!seen.add(p)) {
          return CommandLineOutcome.Failure.argument(PREFIXES_DUPLICATE);
        }
      }
      composed.put(ENV_PREFIXES, String.join(",", o.endpointPrefixes));
    } else if (env.containsKey(ENV_PREFIXES)) {
      String error = csv(env.get(ENV_PREFIXES), ENV_PREFIXES, new ArrayList<>());
      if (error != null) {
        return CommandLineOutcome.Failure.argument(error);
      }
    }
    // 6. Bind: the flag over DYN_RELAY_BIND; blank either way is upstream's "--bind must not be empty".
    String bind = o.bind != null ? o.bind : env.get(ENV_BIND);
    if (bind != null) {
      if (PythonText.isBlank(bind)) {
        return CommandLineOutcome.Failure.argument(BIND_EMPTY);
      }
      composed.put(ENV_BIND, bind);
    }
    // 7. Expected unique blocks: the flag over the variable; parsed by the engine like Python int().
    if (o.expectedUniqueBlocks != null) {
      composed.put(ENV_EXPECTED, o.expectedUniqueBlocks);
    }
    try {
      RelayEngineConfig config = RelayEngineConfig.fromEnvironment(composed);
      return new CommandLineOutcome.Serve(new RelaySettings(config, sourcesFile, revision), LogSettings.DEFAULT);
    } catch (RelayConfigException e) {
      return render(e.violations(), o);
    }
  }

  /**
   * Upstream's CSV rule: split on {@code ,}, strip items; an empty item or a repeat is an error.
   *
   * @return the error text, or null with {@code out} holding the stripped items
   */
  private static @Nullable String csv(@Nullable String text, String option, List<String> out) {
    Set<String> seen = new HashSet<>();
    boolean duplicate = false;
    for (String raw : String.valueOf(text).split(",", -1)) {
      String item = PythonText.strip(raw);
      if (item.isEmpty()) {
        return option + " requires a comma-separated list of non-empty values";
      }
      duplicate |= !seen.add(item);
      out.add(item);
    }
    return duplicate ? option + " must not contain duplicate values" : null;
  }

  /** Renders the engine's violations: argument errors (exit 2) win over start errors (exit 1). */
  private static CommandLineOutcome.Failure render(List<RelayConfigViolation> violations, RelayOptions o) {
    List<String> argument = new ArrayList<>();
    List<String> start = new ArrayList<>();
    for (RelayConfigViolation v : violations) {
      String text = text(v, o);
      (START_REASONS.contains(v.reason()) ? start : argument).add(text);
    }
    return argument.isEmpty() ? new CommandLineOutcome.Failure(start, CommandLineOutcome.START_ERROR)
        : new CommandLineOutcome.Failure(argument, CommandLineOutcome.ARGUMENT_ERROR);
  }

  private static String text(RelayConfigViolation v, RelayOptions o) {
    RelayConfigKey key = v.key();
    switch (v.reason()) {
      case PREFIX_OUTSIDE_NAMESPACES -> {
        return PREFIXES_OUTSIDE;
      }
      case INVALID_SCOPE -> {
        return key == RelayConfigKey.WATCH_ALL && v.message().startsWith(ENV_NAMESPACES) ? ENV_SCOPE_EXCLUSIVE
            : v.message();
      }
      case SURROUNDING_WHITESPACE -> {
        return key == RelayConfigKey.DC_ID ? DC_ID_WHITESPACE : v.message();
      }
      default -> {
        // the key-specific and general wordings below
      }
    }
    if (key == RelayConfigKey.EXPECTED_UNIQUE_BLOCKS && o.expectedUniqueBlocks != null) {
      // The flag's own wording (argparse type=_positive_int).
      return switch (v.reason()) {
        case NOT_AN_INTEGER ->
            "argument --expected-unique-blocks: invalid _positive_int value: '" + o.expectedUniqueBlocks + "'";
        case NOT_POSITIVE -> "argument --expected-unique-blocks: must be a positive integer";
        default -> v.message().startsWith(ENV_EXPECTED + ":")
            ? "--expected-unique-blocks" + v.message().substring(ENV_EXPECTED.length() + 1) : v.message();
      };
    }
    String env = key.envName();
    if (v.reason() == RelayConfigViolation.Reason.NOT_POSITIVE && key.isNumeric() && env != null) {
      return env + ": must be a positive integer";
    }
    return v.message();
  }
}
