package dev.kvrelay.launcher.cli;

import static dev.kvrelay.launcher.cli.CliFixtures.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Property (producer.md §7.1 precedence): a flag is equivalent to its variable — {@code --dc-id} to
 * {@code DYN_DC_ID}, a CLI scope to the env scope it replaces, the CLI prefix list to {@code
 * DYN_RELAY_ENDPOINT_PREFIXES}, {@code --bind} to {@code DYN_RELAY_BIND}, {@code --expected-unique-blocks}
 * to its variable. Any CLI+env combination is accepted exactly when its env-only equivalent is, with an
 * equal configuration, and otherwise both fail with the same exit code.
 */
class RelayCommandLineProperties {
  private static final String[] DC_CLI = {null, "dc-a", "us-west", " x", ""};
  private static final String[] DC_ENV = {null, "dc-b", ""};
  private static final String[][] CLI_SCOPE = {
      {}, {"--namespaces", "a,b"}, {"--namespaces", "a"}, {"--namespace-filter", "a"}, {"--watch-all"},
      {"--namespaces", "b , c"}};
  private static final String[][] ENV_SCOPE = {
      {}, {"DYN_RELAY_NAMESPACES", "a"}, {"DYN_RELAY_NAMESPACES", "a,b", "DYN_RELAY_WATCH_ALL", "no"},
      {"DYN_RELAY_WATCH_ALL", "on"}, {"DYN_RELAY_WATCH_ALL", "false"}, {"DYN_RELAY_NAMESPACES", "a,,"}};
  private static final String[][] CLI_PREFIXES = {{}, {"a.x"}, {"a", "b.y"}, {"c"}};
  private static final String[] ENV_PREFIXES = {null, "a.x", "b.y,a", "a.x,,"};
  private static final String[] BIND_CLI = {null, "127.0.0.1:5561", "[::1]:0", "nonsense"};
  private static final String[] BIND_ENV = {null, "0.0.0.0:5561", ""};
  private static final String[] EXPECTED_CLI = {null, "65536", "0", "x"};
  private static final String[] EXPECTED_ENV = {null, "4096", "many"};
  private static final String[][] KNOB_ENV = {
      {}, {"DYN_RELAY_LOAD_WINDOW_MS", "250"}, {"DYN_RELAY_PUBLICATION_THRESHOLD", "8"}};

  private static final int[] SIZES = {DC_CLI.length, DC_ENV.length, CLI_SCOPE.length, ENV_SCOPE.length,
      CLI_PREFIXES.length, ENV_PREFIXES.length, BIND_CLI.length, BIND_ENV.length, EXPECTED_CLI.length,
      EXPECTED_ENV.length, KNOB_ENV.length};

  private static void put(Map<String, String> env, String name, @Nullable String value) {
    if (value != null) {
      env.put(name, value);
    }
  }

  @Test
  void flagsAreEquivalentToTheirVariables() {
    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger rejected = new AtomicInteger();
    qt().withExamples(2000).forAll(lists().of(integers().between(0, 1 << 20)).ofSize(SIZES.length))
        .checkAssert(raw -> {
          int[] c = new int[SIZES.length];
          for (int i = 0; i < c.length; i++) {
            c[i] = raw.get(i) % SIZES[i];
          }
          Map<String, String> env = new HashMap<>();
          put(env, "DYN_DC_ID", DC_ENV[c[1]]);
          for (int i = 0; i < ENV_SCOPE[c[3]].length; i += 2) {
            env.put(ENV_SCOPE[c[3]][i], ENV_SCOPE[c[3]][i + 1]);
          }
          put(env, "DYN_RELAY_ENDPOINT_PREFIXES", ENV_PREFIXES[c[5]]);
          put(env, "DYN_RELAY_BIND", BIND_ENV[c[7]]);
          put(env, "DYN_RELAY_EXPECTED_UNIQUE_BLOCKS", EXPECTED_ENV[c[9]]);
          for (int i = 0; i < KNOB_ENV[c[10]].length; i += 2) {
            env.put(KNOB_ENV[c[10]][i], KNOB_ENV[c[10]][i + 1]);
          }

          List<String> args = new ArrayList<>();
          Map<String, String> envOnly = new HashMap<>(env);
          if (DC_CLI[c[0]] != null) {
            args.add("--dc-id=" + DC_CLI[c[0]]);
            envOnly.put("DYN_DC_ID", DC_CLI[c[0]]);
          }
          String[] scope = CLI_SCOPE[c[2]];
          if (scope.length > 0) {
            args.addAll(List.of(scope));
            envOnly.remove("DYN_RELAY_NAMESPACES");
            envOnly.remove("DYN_RELAY_WATCH_ALL");
            if (scope[0].equals("--watch-all")) {
              envOnly.put("DYN_RELAY_WATCH_ALL", "true");
            } else {
              envOnly.put("DYN_RELAY_NAMESPACES", scope[1]);
            }
          }
          String[] prefixes = CLI_PREFIXES[c[4]];
          if (prefixes.length > 0) {
            for (String p : prefixes) {
              args.add("--endpoint-prefix");
              args.add(p);
            }
            envOnly.put("DYN_RELAY_ENDPOINT_PREFIXES", String.join(",", prefixes));
          }
          if (BIND_CLI[c[6]] != null) {
            args.add("--bind");
            args.add(BIND_CLI[c[6]]);
            envOnly.put("DYN_RELAY_BIND", BIND_CLI[c[6]]);
          }
          if (EXPECTED_CLI[c[8]] != null) {
            args.add("--expected-unique-blocks");
            args.add(EXPECTED_CLI[c[8]]);
            envOnly.put("DYN_RELAY_EXPECTED_UNIQUE_BLOCKS", EXPECTED_CLI[c[8]]);
          }

          CommandLineOutcome withCli = parse(args, env);
          CommandLineOutcome withEnv = parse(List.of(), envOnly);
          String what = args + " over " + env + " vs env-only " + envOnly;
          if (withCli instanceof CommandLineOutcome.Serve) {
            accepted.incrementAndGet();
            assertThat(withEnv).as(what).isEqualTo(withCli);
          } else {
            rejected.incrementAndGet();
            assertThat(withEnv).as(what).isInstanceOf(CommandLineOutcome.Failure.class);
            assertThat(((CommandLineOutcome.Failure) withEnv).exitCode()).as(what)
                .isEqualTo(((CommandLineOutcome.Failure) withCli).exitCode());
          }
        });
    // Non-vacuity: both sides of the equivalence were exercised.
    assertThat(accepted.get()).isGreaterThan(50);
    assertThat(rejected.get()).isGreaterThan(50);
  }
}
