package dev.kvrelay.launcher;

import dev.kvrelay.engine.BindAddress;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Immutable and thread-safe (no state): the entry point of the stock relay jar. Without arguments it runs
 * {@link EmbeddedDemo}: relay engines for three data centers in process, read back and checked by a router-side
 * consumer. With {@code --serve-demo <bind>} it runs {@link ServeDemo}: one simulated data center behind a real
 * gRPC listener until SIGTERM or SIGINT.
 *
 * <p>Usage: {@code java -jar kvrelay-launcher-all.jar [--help | --serve-demo <bind>]}. Exit status of the demo: 0
 * when every prefix answer equals the depth it expects, 1 when one does not or the demo cannot run. Exit status of
 * {@code --serve-demo}: 0 after an orderly stop on SIGTERM/SIGINT, 1 when the relay cannot start or bind or ends on
 * its own. 2 on bad arguments.
 */
public final class Main {
  /** Exit status of a run whose every answer matched, or of an orderly stop. */
  static final int OK = 0;
  /** Exit status of a failed self-check, a demo that could not run, or a relay that failed. */
  static final int FAILED = 1;
  /** Exit status of bad command-line arguments. */
  static final int USAGE = 2;

  static final String SERVE_DEMO = "--serve-demo";

  private static final List<String> USAGE_TEXT = List.of(
      "usage: java -jar kvrelay-launcher-all.jar [--help | --serve-demo <bind>]",
      "Without arguments runs the embedded demo: relay engines for us-west, us-east and eu-central in process with",
      "simulated workers, read back by a router (RelayConsumer); exits 0 when every prefix answer equals the",
      "expected depth, 1 otherwise.",
      "--serve-demo <bind>  serves one simulated data center (us-west: in-memory planes, simulated workers) over",
      "                     gRPC (dynamo.kvrelay.v1.KvEventRelay, health, reflection; plaintext h2c) on <bind>,",
      "                     a numeric a.b.c.d:port or [ipv6]:port, port 0 = any free port; prints",
      "                     'kvrelay: serving us-west on <host:port>' once SERVING and runs until SIGTERM or",
      "                     SIGINT, then stops in order and exits 0 (1 if the relay cannot start or fails).",
      "Exit status 2: bad arguments.",
      "The stock launcher CLI (DYN_* environment, plugins, system port) arrives with the launcher issue.");

  private Main() {}

  /**
   * Runs the chosen mode and exits with its status. The demo ends on its own on success (no thread keeps the JVM
   * alive); the serving mode installs its SIGTERM/SIGINT handlers ({@link StopSignals}) and always exits explicitly.
   */
  public static void main(String[] args) {
    boolean serving = args.length > 0 && SERVE_DEMO.equals(args[0]);
    int status = run(args, System.out, System.err, serve -> StopSignals.install(serve::requestStop, System.err));
    if (status != OK || serving) {
      System.exit(status);
    }
  }

  /** {@link #run(String[], PrintStream, PrintStream, Consumer)} with no hook for the serving mode. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, serve -> { });
  }

  /**
   * Parses {@code args}, runs the chosen mode printing to {@code out} (errors to {@code err}) and returns the exit
   * status. {@code onServe} receives the serving run before it starts, to arrange how it is stopped.
   */
  static int run(String[] args, PrintStream out, PrintStream err, Consumer<ServeDemo> onServe) {
    if (args.length == 1 && ("--help".equals(args[0]) || "-h".equals(args[0]))) {
      USAGE_TEXT.forEach(out::println);
      return OK;
    }
    if (args.length > 0 && SERVE_DEMO.equals(args[0])) {
      if (args.length != 2) {
        err.println(args.length < 2 ? "kvrelay: " + SERVE_DEMO + " needs a bind address"
            : "kvrelay: unknown argument " + args[2]);
        USAGE_TEXT.forEach(err::println);
        return USAGE;
      }
      Optional<BindAddress> bind = BindAddress.tryParse(args[1]);
      if (bind.isEmpty()) {
        err.println("kvrelay: " + BindAddress.INVALID_MESSAGE + ": " + args[1]);
        return USAGE;
      }
      ServeDemo serve = new ServeDemo(bind.get(), out, err);
      onServe.accept(serve);
      try {
        return serve.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        err.println("kvrelay: interrupted");
        return FAILED;
      }
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
