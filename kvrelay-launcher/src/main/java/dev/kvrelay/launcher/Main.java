package dev.kvrelay.launcher;

import java.io.PrintStream;
import java.util.List;

/**
 * Immutable and thread-safe (no state): the entry point of the stock relay jar. Until the launcher issue lands
 * it runs {@link EmbeddedDemo}: relay engines for three data centers in process, read back and checked by a
 * router-side consumer.
 *
 * <p>Usage: {@code java -jar kvrelay-launcher-all.jar [--help]}. Exit status: 0 when every prefix answer of the
 * demo equals the depth it expects, 1 when one does not or the demo cannot run, 2 on bad arguments.
 */
public final class Main {
  /** Exit status of a run whose every answer matched. */
  static final int OK = 0;
  /** Exit status of a failed self-check or a demo that could not run. */
  static final int FAILED = 1;
  /** Exit status of bad command-line arguments. */
  static final int USAGE = 2;

  private static final List<String> USAGE_TEXT = List.of(
      "usage: java -jar kvrelay-launcher-all.jar [--help]",
      "Runs the embedded demo: relay engines for us-west, us-east and eu-central in process with simulated",
      "workers, read back by a router (RelayConsumer); exits 0 when every prefix answer equals the expected depth.",
      "The stock launcher CLI (DYN_* environment, plugins, system port) arrives with the launcher issue.");

  private Main() {}

  /** Runs the demo and exits with its status; on success the JVM ends on its own (no thread keeps it alive). */
  public static void main(String[] args) {
    int status = run(args, System.out, System.err);
    if (status != OK) {
      System.exit(status);
    }
  }

  /** Parses {@code args}, runs the demo printing to {@code out} (errors to {@code err}), returns the exit status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 1 && ("--help".equals(args[0]) || "-h".equals(args[0]))) {
      USAGE_TEXT.forEach(out::println);
      return OK;
    }
    if (args.length != 0) {
      err.println("kvrelay: unknown argument " + args[0]);
      USAGE_TEXT.forEach(err::println);
      return USAGE;
    }
    try {
      return new EmbeddedDemo(out, EmbeddedDemo.DEFAULT_DEADLINE).run().exitStatus();
    } catch (DemoException e) {
      err.println("kvrelay: " + e.getMessage());
      return FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("kvrelay: interrupted");
      return FAILED;
    }
  }
}
