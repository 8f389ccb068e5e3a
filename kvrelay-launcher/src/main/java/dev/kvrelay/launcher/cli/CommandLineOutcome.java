package dev.kvrelay.launcher.cli;

import dev.kvrelay.engine.BindAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: what {@link RelayCommandLine#parse} decided — run the relay, run the demo,
 * print help, or fail with a message and an exit code ({@code producer.md} §7.6).
 */
public sealed interface CommandLineOutcome {

  /** Exit status for argument errors (argparse's {@code parser.error}). */
  int ARGUMENT_ERROR = 2;
  /** Exit status for construction and start validation errors (an uncaught exception upstream). */
  int START_ERROR = 1;

  /**
   * Immutable: run the relay with {@code settings}.
   *
   * @param settings the validated configuration
   * @param log the log levels asked for ({@code --log-level}, {@code DYN_LOG})
   */
  record Serve(RelaySettings settings, LogSettings log) implements CommandLineOutcome {
    /** Checks that the components are present. */
    public Serve {
      Objects.requireNonNull(settings, "settings");
      Objects.requireNonNull(log, "log");
    }
  }

  /**
   * Immutable: run the embedded demo ({@code demo [--bind HOST:PORT]}, or {@code demo --self-check}).
   *
   * @param bind where the demo DC serves WAN gRPC; empty: {@link #DEFAULT_BIND} (unused with {@code selfCheck})
   * @param selfCheck run the three-DC self-checking demo in process and exit (no listener)
   * @param log the log levels asked for ({@code --log-level}, {@code DYN_LOG})
   */
  record Demo(Optional<BindAddress> bind, boolean selfCheck, LogSettings log) implements CommandLineOutcome {
    /** Where {@code demo} serves without {@code --bind}: the seed's gRPC port on loopback. */
    public static final String DEFAULT_BIND = "127.0.0.1:5561";

    /** Checks that the components are present and that the self-check takes no bind address. */
    public Demo {
      Objects.requireNonNull(bind, "bind");
      Objects.requireNonNull(log, "log");
      if (selfCheck && bind.isPresent()) {
        throw new IllegalArgumentException("the self-check takes no bind address");
      }
    }

    /** The address the serving demo binds: {@link #bind()} or {@link #DEFAULT_BIND}. */
    public BindAddress bindOrDefault() {
      return bind.orElseGet(() -> BindAddress.tryParse(DEFAULT_BIND).orElseThrow());
    }
  }

  /**
   * Immutable: print {@code text} to standard output and exit 0.
   *
   * @param text the usage text
   */
  record Help(String text) implements CommandLineOutcome {
    /** Checks that the text is present. */
    public Help {
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * Immutable: print the errors to standard error and exit with {@code exitCode}; nothing was started.
   *
   * @param errors the error texts (at least one), upstream's exact wording where the spec gives it
   * @param exitCode {@link #ARGUMENT_ERROR} or {@link #START_ERROR}
   */
  record Failure(List<String> errors, int exitCode) implements CommandLineOutcome {
    /** Copies the errors; checks there is at least one and that the exit code is 1 or 2. */
    public Failure {
      errors = List.copyOf(errors);
      if (errors.isEmpty()) {
        throw new IllegalArgumentException("a failure needs an error text");
      }
      if (exitCode != ARGUMENT_ERROR && exitCode != START_ERROR) {
        throw new IllegalArgumentException("exit code must be 1 or 2, got " + exitCode);
      }
    }

    /** A single argument error (exit 2). */
    static Failure argument(String error) {
      return new Failure(List.of(error), ARGUMENT_ERROR);
    }

    /** The first error, the one argparse would have printed. */
    public String message() {
      return errors.get(0);
    }
  }
}
