package dev.kvrelay.launcher;

import dev.kvrelay.launcher.cli.CommandLineOutcome;
import dev.kvrelay.launcher.cli.RelayCommandLine;
import dev.kvrelay.launcher.cli.RelaySettings;
import dev.kvrelay.launcher.cli.RuntimeEnvironment;
import dev.kvrelay.launcher.diagnostics.StockDiagnostics;
import dev.kvrelay.launcher.health.HealthSource;
import dev.kvrelay.launcher.health.SourcesStatus;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.launcher.inspect.InspectCommand;
import dev.kvrelay.launcher.system.RelayProcessInfo;
import dev.kvrelay.launcher.system.SystemServer;
import dev.kvrelay.launcher.system.SystemServerSettings;
import dev.kvrelay.launcher.system.SystemSettingsException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.CharBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Immutable and thread-safe (no state): the entry point of the stock relay jar ({@code CLI.md}).
 *
 * <ul>
 *   <li>{@code kvrelay [relay flags]} — the stock relay: flags over the environment ({@link RelayCommandLine},
 *       {@code producer.md} §7.1–§7.4), plugins chosen and configured by the runtime environment
 *       ({@link RuntimeEnvironment}, {@link OpenPlugins}), run by {@link StockRelay} until SIGTERM or SIGINT.
 *   <li>{@code kvrelay demo [--bind HOST:PORT]} — one in-process DC with simulated workers that keep caching and
 *       evicting, behind the WAN gRPC server until SIGTERM or SIGINT ({@link ServeDemo}).
 *   <li>{@code kvrelay inspect <info|catalog|readiness|load|serving-load|pool|query> --target HOST:PORT} — a
 *       client of a running relay that prints what grpcurl would and validates pool streams ({@code INSPECT.md}).
 *   <li>{@code kvrelay demo --self-check} — three DCs in process read back by a router-side consumer, exit 0 only
 *       if every answer is exact ({@link EmbeddedDemo}).
 * </ul>
 *
 * <p>Exit status ({@code producer.md} §7.6): 0 after {@code --help} or an orderly stop on SIGTERM/SIGINT with no
 * host or WAN error; 1 for a start failure (plugin missing or refusing its settings, store unreachable, bind
 * failure, engine refusal, start-time config rules) or a terminal host or transport failure; 2 for argument
 * errors. Errors go to standard error as {@code kvrelay: <text>}; standard output carries only the lines that say
 * where to look.
 */
public final class Main {
  /** Exit status of an orderly stop, help, or a passed self-check. */
  static final int OK = 0;
  /** Exit status of a start failure, a terminal failure or a failed self-check. */
  static final int FAILED = 1;
  /** Exit status of argument errors. */
  static final int USAGE = CommandLineOutcome.ARGUMENT_ERROR;

  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {}

  /** Parses the process arguments and environment, runs the chosen command and exits with its status. */
  public static void main(String[] args) {
    LogBackend.install();
    StopRequest stop = new StopRequest();
    StopSignals.install(stop::request, System.err);
    int status = run(args, System.getenv(), System.out, System.err, stop, PluginRegistries.load());
    System.exit(status);
  }

  /**
   * Runs {@code args} over {@code env} and returns the exit status; never calls {@link System#exit}.
   *
   * @param stop where stop requests come from (signals in {@link #main}; tests request directly)
   * @param registries where the stock relay's plugins are looked up
   */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err, StopRequest stop,
      PluginRegistries registries) {
    return run(args, env, out, err, stop, registries, Hooks.NONE);
  }

  /**
   * Immutable and thread-safe: callbacks into a run.
   *
   * @param onRelayStarted receives the stock relay once its engine and gRPC server run, before the serving line
   * @param onDemo receives the serving demo before it starts
   */
  record Hooks(Consumer<StockRelay> onRelayStarted, Consumer<ServeDemo> onDemo) {
    /** No callbacks. */
    static final Hooks NONE = new Hooks(relay -> { }, demo -> { });
  }

  /**
   * As {@link #run(String[], Map, PrintStream, PrintStream, StopRequest, PluginRegistries)}, with callbacks into
   * the run ({@link Hooks}: tests use them to reach the engine and the demo).
   */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err, StopRequest stop,
      PluginRegistries registries, Hooks hooks) {
    if (args.length > 0 && args[0].equals("inspect")) {
      return inspect(java.util.Arrays.copyOfRange(args, 1, args.length), out, err);
    }
    CommandLineOutcome outcome = RelayCommandLine.parse(args, env);
    if (outcome instanceof CommandLineOutcome.Help help) {
      out.print(help.text());
      out.flush();
      return OK;
    }
    if (outcome instanceof CommandLineOutcome.Failure failure) {
      for (String e : failure.errors()) {
        err.println("kvrelay: " + e);
      }
      if (failure.exitCode() == USAGE) {
        err.println("kvrelay: see 'kvrelay --help'");
      }
      return failure.exitCode();
    }
    try {
      if (outcome instanceof CommandLineOutcome.Demo demo) {
        LogBackend.apply(demo.log());
        return demo.selfCheck() ? selfCheck(out, err) : serveDemo(demo, env, out, err, stop, hooks);
      }
      CommandLineOutcome.Serve serve = (CommandLineOutcome.Serve) outcome;
      LogBackend.apply(serve.log());
      return relay(serve.settings(), env, RuntimeEnvironment.from(env), out, err, stop, registries, hooks);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("kvrelay: interrupted");
      return FAILED;
    }
  }

  /** The stock relay: plugins, engine, gRPC server; then the system server seam; then wait and stop in order. */
  private static int relay(RelaySettings settings, Map<String, String> env, RuntimeEnvironment runtime,
      PrintStream out, PrintStream err, StopRequest stop, PluginRegistries registries, Hooks hooks)
      throws InterruptedException {
    SystemServerSettings system;
    try {
      system = SystemServerSettings.fromEnvironment(env);
    } catch (SystemSettingsException e) {
      err.println("kvrelay: " + e.getMessage());
      err.println("kvrelay: see 'kvrelay --help'");
      return USAGE;
    }
    StockRelay relay;
    try {
      relay = StockRelay.start(settings.engine(), settings.sourcesFile(), settings.connectionRevision(),
          OpenPlugins.open(runtime, registries), 0);
    } catch (StartException e) {
      LOG.error("start failed: {}", e.getMessage());
      LOG.debug("start failure cause", e);
      err.println("kvrelay: " + e.getMessage());
      return FAILED;
    }
    try {
      // The system HTTP server (DYN_SYSTEM_PORT: /health, /live, /metrics, /engine/state) starts after the engine
      // and the gRPC server; attached, it closes first, and its health turns 503 as soon as the stop begins.
      Optional<SystemServer> systemServer;
      try {
        systemServer = SystemServer.startIfEnabled(system, relay.engine(), processInfo(settings, env, relay));
      } catch (IOException e) {
        LOG.error("start failed: {}", e.getMessage());
        err.println("kvrelay: " + e.getMessage());
        return FAILED;
      }
      systemServer.ifPresent(relay::attach);
      // The diagnostic runtime endpoints (producer §7.5: health always, stats, snapshot) on the TCP request plane,
      // advertised in the relay's discovery backend; they answer the same health object as the system server.
      if (runtime.requestPlane().equals("tcp")) {
        HealthSource health = systemServer.<HealthSource>map(s -> s::health)
            .orElseGet(() -> HealthSource.ofEngine(relay.engine(), () -> sourcesStatus(relay), () -> wanStatus(relay)));
        try {
          relay.attach(StockDiagnostics.start(relay.engine(), env, relay.plugins().discovery(), runtime.namespace(),
              health));
        } catch (IOException | IllegalArgumentException e) {
          LOG.error("start failed: {}", e.getMessage());
          err.println("kvrelay: " + e.getMessage());
          return FAILED;
        }
      }
      systemServer.ifPresent(s -> out.println("kvrelay: system server on " + s.address().getHostString() + ":"
          + s.port() + " (" + system.healthPath() + ", " + system.livePath() + ", /metrics, /engine/state)"));
      hooks.onRelayStarted().accept(relay);
      String dc = settings.engine().dcName();
      out.println(relay.boundAddress().map(a -> "kvrelay: serving " + dc + " on " + a)
          .orElse("kvrelay: running " + dc + " (WAN off: no --bind or DYN_RELAY_BIND)"));
      out.flush();
      stop.bind(why -> {
        systemServer.ifPresent(SystemServer::beginShutdown);
        relay.requestStop(why);
      });
      StockRelay.Ended ended = relay.await();
      if (ended.clean()) {
        err.println("kvrelay: stopping on " + ended.stopReason());
      } else {
        err.println("kvrelay: the relay ended on its own: " + ended.failure());
      }
    } finally {
      relay.close();
    }
    StockRelay.Ended outcome = relay.outcome();
    if (!outcome.clean()) {
      if (outcome.stopReason() != null) {
        err.println("kvrelay: the stop recorded a transport error: " + outcome.failure());
      }
      return FAILED;
    }
    out.println("kvrelay: stopped");
    out.flush();
    return OK;
  }

  /** What {@code /engine/state} reports: discovery mode, or file mode with the engine's sources status. */
  private static RelayProcessInfo processInfo(RelaySettings settings, Map<String, String> env, StockRelay relay) {
    RelayProcessInfo discovery = RelayProcessInfo.discovery(env, () -> wanStatus(relay));
    if (!settings.fileMode()) {
      return discovery;
    }
    return new RelayProcessInfo(discovery.namespace(), discovery.podUid(), RelayProcessInfo.MODE_FROM_FILE,
        settings.connectionRevision().orElse(null), discovery.wan(), () -> sourcesStatus(relay));
  }

  /** The health object's {@code sources}: the engine's sources-file status in file mode, else none. */
  private static SourcesStatus sourcesStatus(StockRelay relay) {
    return relay.engine().sourcesStatus().map(s -> new SourcesStatus(s.desiredRevision(), s.appliedRevision(),
        s.count(), s.lastError() == null ? null : s.lastError().getMessage())).orElse(SourcesStatus.NONE);
  }

  /** The WAN listener's part of the health object: enabled with a bind, serving while the gRPC server runs. */
  private static WanStatus wanStatus(StockRelay relay) {
    return relay.grpcServer().isEmpty() ? WanStatus.DISABLED
        : new WanStatus(true, true, relay.boundAddress().orElse(null), null);
  }

  /** {@code kvrelay inspect …} ({@code INSPECT.md}): a gRPC client of a relay; its exit status is the command's. */
  private static int inspect(String[] args, PrintStream out, PrintStream err) {
    picocli.CommandLine cl = new picocli.CommandLine(new InspectCommand());
    cl.setOut(writerOnto(out));
    cl.setErr(writerOnto(err));
    int status = cl.execute(args);
    out.flush();
    return status;
  }

  /**
   * An auto-flushing writer onto {@code stream} that hands it characters, so they are encoded with the stream's
   * own charset (a {@code PrintWriter} over the stream's bytes would encode with the platform default instead).
   */
  private static PrintWriter writerOnto(PrintStream stream) {
    return new PrintWriter(new Writer() {
      @Override
      public void write(char[] chars, int offset, int length) {
        stream.append(CharBuffer.wrap(chars, offset, length));
      }

      @Override
      public void flush() {
        stream.flush();
      }

      @Override
      public void close() {
        stream.flush();
      }
    }, true);
  }

  private static int serveDemo(CommandLineOutcome.Demo demo, Map<String, String> env, PrintStream out,
      PrintStream err, StopRequest stop, Hooks hooks) throws InterruptedException {
    SystemServerSettings system;
    try {
      system = SystemServerSettings.fromEnvironment(env); // the demo honours DYN_SYSTEM_PORT like the relay
    } catch (SystemSettingsException e) {
      err.println("kvrelay: " + e.getMessage());
      return USAGE;
    }
    ServeDemo serve = new ServeDemo(demo.bindOrDefault(), system, out, err);
    hooks.onDemo().accept(serve);
    stop.bind(serve::requestStop);
    return serve.run();
  }

  private static int selfCheck(PrintStream out, PrintStream err) throws InterruptedException {
    try {
      return new EmbeddedDemo(out, EmbeddedDemo.DEFAULT_DEADLINE).run().exitStatus();
    } catch (DemoException e) {
      err.println("kvrelay: " + e.getMessage());
      return FAILED;
    }
  }
}
