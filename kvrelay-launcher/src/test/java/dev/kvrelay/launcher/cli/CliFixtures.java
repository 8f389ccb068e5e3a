package dev.kvrelay.launcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Stateless and thread-safe test helpers for the command-line tests. */
final class CliFixtures {
  private CliFixtures() {}

  static CommandLineOutcome parse(List<String> args, Map<String, String> env) {
    return RelayCommandLine.parse(args.toArray(String[]::new), env);
  }

  static RelaySettings serve(List<String> args, Map<String, String> env) {
    CommandLineOutcome out = parse(args, env);
    assertThat(out).as("outcome of %s over %s", args, env).isInstanceOf(CommandLineOutcome.Serve.class);
    return ((CommandLineOutcome.Serve) out).settings();
  }

  static CommandLineOutcome.Failure failure(List<String> args, Map<String, String> env) {
    CommandLineOutcome out = parse(args, env);
    assertThat(out).as("outcome of %s over %s", args, env).isInstanceOf(CommandLineOutcome.Failure.class);
    return (CommandLineOutcome.Failure) out;
  }

  /** An environment from alternating names and values. */
  static Map<String, String> env(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }
}
