package dev.kvrelay.launcher;

import java.io.PrintStream;
import java.util.List;
import java.util.function.Consumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Immutable and thread-safe (no state): turns SIGTERM and SIGINT into an orderly stop of the serving mode.
 *
 * <p>Decision (wan-grpc.md §6.3/§6.5, C46 "SIGTERM gives a clean exit 0"): a JVM ended by SIGTERM runs its shutdown
 * hooks and exits 143 (128 + 15), so a shutdown hook cannot give status 0. The launcher therefore replaces the
 * JVM's TERM and INT handlers with {@code sun.misc.Signal} handlers (module {@code jdk.unsupported}; the launcher is
 * not a named module, so no {@code requires} is needed) that only ask the run to stop; the run then closes the
 * server and the engine and {@link Main} exits with the run's status. Pinned by
 * {@code ServeDemoProcessTest#c46_sigtermGivesACleanExit0}.
 */
final class StopSignals {
  /** The signals handled, by their {@code sun.misc.Signal} names. */
  static final List<String> NAMES = List.of("TERM", "INT");

  private StopSignals() {}

  /**
   * Installs a handler for each of {@link #NAMES} that calls {@code onSignal} with {@code SIG<NAME>}; a signal the
   * platform or JVM will not let us handle (e.g. under {@code -Xrs}), or one the process inherited as ignored, is
   * reported on {@code err} and left as is.
   */
  static void install(Consumer<String> onSignal, PrintStream err) {
    for (String name : NAMES) {
      try {
        Signal signal = new Signal(name);
        if (Signal.handle(signal, s -> onSignal.accept("SIG" + s.getName())) == SignalHandler.SIG_IGN) {
          // Ignored when the JVM started (a shell's background job ignores SIGINT): the JVM keeps it ignored, so
          // say so instead of promising a stop it will never see.
          Signal.handle(signal, SignalHandler.SIG_IGN);
          err.println("kvrelay: SIG" + name + " is ignored (inherited from the parent process); it does not stop"
              + " the relay");
        }
      } catch (IllegalArgumentException e) {
        err.println("kvrelay: cannot handle SIG" + name + " (" + e.getMessage() + "); it ends the JVM directly");
      }
    }
  }
}
