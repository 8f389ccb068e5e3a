package dev.kvrelay.launcher;

import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.ckf.hashing.HashingInputException;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.BindAddress;
import dev.kvrelay.engine.RelayConfigException;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.launcher.system.RelayProcessInfo;
import dev.kvrelay.launcher.system.SystemServer;
import dev.kvrelay.launcher.system.SystemServerSettings;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe ({@link #requestStop} may be called from any thread, e.g. a signal handler; {@link #run} is called
 * once, on one thread): the {@code demo} subcommand, one simulated data center behind a real WAN listener.
 *
 * <p>It starts {@value #DC}'s {@link DemoDataCenter} (a {@code RelayEngine} on the in-memory discovery, event and
 * request planes, with two simulated workers of two ranks each that cache a few prompts), waits until the relay
 * lists the workers' pool, serves the engine with a {@link RelayGrpcServer} on the given bind address and, once the
 * relay service's health is SERVING, prints {@code kvrelay: serving us-west on <host:port>} (the port actually
 * bound) followed by where to look (the pool, the model, how to read it). From then on {@link DemoTraffic} keeps
 * the workers caching and evicting, so deltas flow. It runs until {@link #requestStop} is called ({@link Main} calls
 * it on SIGTERM and SIGINT) or the engine ends on its own. The orderly stop (wan-grpc.md §6.3): health NOT_SERVING and {@code shutdownNow} (both
 * done by {@link RelayGrpcServer#close()}), then the engine and its planes are closed, then
 * {@code kvrelay: stopped} is printed and 0 returned. An engine that ends on its own, or a start-up failure, is
 * printed on the error stream and gives 1.
 *
 * <p>Both the engine's and the server's {@code terminated()} trip the run's latch: a transport that stops by itself
 * (its supervisor records the error, marks NOT_SERVING and cancels the relay, wan-grpc.md §6.3) ends the run with
 * status 1 just like an engine failure.
 */
final class ServeDemo {
  /** The data center this mode simulates. */
  static final String DC = "us-west";
  /** The longest start-up waits for the relay to list the demo pool. */
  static final Duration START_DEADLINE = Duration.ofSeconds(20);

  private static final int WORKERS = 2;
  private static final int RANKS_PER_WORKER = 2;
  private static final long EXPECTED_UNIQUE_BLOCKS = 4096;
  private static final int POOL_THREADS = 2;
  private static final long POLL_MS = 5;

  private final BindAddress bind;
  private final PrintStream out;
  private final PrintStream err;
  private final CountDownLatch wake = new CountDownLatch(1);
  /** Why the run should end: a stop request's reason, set once. */
  private final AtomicReference<@Nullable String> stopReason = new AtomicReference<>();
  private final SystemServerSettings system;
  /** An error that ended the engine on its own, set once. */
  private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
  /** The running engine, once started (for tests of the failure path). */
  private volatile @Nullable RelayEngine engine;
  /** The running data center, once started (for tests). */
  private volatile @Nullable DemoDataCenter running;

  /** A serving run on {@code bind}, printing to {@code out} (errors to {@code err}). */
  ServeDemo(BindAddress bind, PrintStream out, PrintStream err) {
    this(bind, new SystemServerSettings(SystemServerSettings.DISABLED, SystemServerSettings.DEFAULT_HOST,
        SystemServerSettings.DEFAULT_HEALTH_PATH, SystemServerSettings.DEFAULT_LIVE_PATH), out, err);
  }

  /** A serving run on {@code bind} with the system server of {@code system} (disabled unless DYN_SYSTEM_PORT ≥ 0). */
  ServeDemo(BindAddress bind, SystemServerSettings system, PrintStream out, PrintStream err) {
    this.bind = bind;
    this.system = system;
    this.out = out;
    this.err = err;
  }

  /**
   * Asks the run to stop in order ({@code why} names the cause, e.g. {@code SIGTERM}); the first request wins,
   * later ones and requests after the run ended do nothing. Never blocks.
   */
  void requestStop(String why) {
    if (stopReason.compareAndSet(null, why)) {
      wake.countDown();
    }
  }

  /**
   * Serves until a stop request or an engine failure; returns the exit status: {@link Main#OK} after an orderly
   * stop, {@link Main#FAILED} when the relay could not start, could not bind, or ended on its own.
   *
   * @throws InterruptedException if the calling thread is interrupted (everything started is stopped first)
   */
  int run() throws InterruptedException {
    DemoDataCenter dc = null;
    RelayGrpcServer server = null;
    DemoTraffic traffic = null;
    SystemServer systemServer = null;
    try {
      try {
        dc = DemoDataCenter.start(DC, EXPECTED_UNIQUE_BLOCKS, POOL_THREADS);
        TokenBlockHasher hasher =
            TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, EmbeddedDemo.BLOCK_SIZE);
        for (int w = 1; w <= WORKERS; w++) {
          dc.addWorker("worker-" + w, 0x1000L + w, EmbeddedDemo.ENDPOINT, EmbeddedDemo.MODEL, EmbeddedDemo.ALIASES,
              RANKS_PER_WORKER, hasher);
        }
      } catch (RelayConfigException | RelayEngineException | HashingInputException | DiscoveryDecodeException e) {
        err.println("kvrelay: the relay could not start: " + e.getMessage());
        return Main.FAILED;
      }
      DemoDataCenter started = dc;
      engine = started.relay();
      running = started;
      // The dependent stages are not needed: ended() cannot throw, and records what it saw in this run's state.
      CompletableFuture<?> unusedEngine =
          started.relay().terminated().whenComplete((ok, error) -> ended(error, "the relay engine stopped"));
      if (!awaitPool(started)) {
        return stopped();
      }
      started.workers().get(0).cache(0, EmbeddedDemo.tokens("system prompt", 4 * EmbeddedDemo.BLOCK_SIZE));
      started.workers().get(1).cache(1, EmbeddedDemo.tokens("another chat", 5 * EmbeddedDemo.BLOCK_SIZE));
      server = RelayGrpcServer.builder().engine(started.relay()).address(bind.socketAddress()).build();
      try {
        server.start();
      } catch (IOException e) {
        err.println("kvrelay: cannot serve on " + bind + ": " + e.getMessage());
        return Main.FAILED;
      }
      if (server.healthStatus(RelayGrpcServer.SERVICE_NAME) != ServingStatus.SERVING) {
        err.println("kvrelay: the relay service is not SERVING after start");
        return Main.FAILED;
      }
      CompletableFuture<?> unusedServer =
          server.terminated().whenComplete((ok, error) -> ended(error, "the WAN transport stopped"));
      String where = hostPort(bind, server.port());
      out.println("kvrelay: serving " + DC + " on " + where);
      KvPoolDescriptor pool = started.pool(EmbeddedDemo.ENDPOINT).orElseThrow();
      out.println("kvrelay: pool " + pool.servingEndpoint().dottedName() + " (model " + EmbeddedDemo.MODEL + ", " + WORKERS
          + " workers x " + RANKS_PER_WORKER + " ranks caching and evicting every " + DemoTraffic.PERIOD_MS + " ms)");
      out.println("kvrelay: look: gRPC dynamo.kvrelay.v1.KvEventRelay on " + where
          + " (plaintext h2c; grpc.health.v1 and reflection v1 on the same port), e.g. RelayGrpcClient"
          + " watchCatalog/subscribePool; stop with SIGTERM or Ctrl-C");
      try {
        WanStatus wan = new WanStatus(true, true, where, null);
        systemServer = SystemServer.startIfEnabled(system, started.relay(),
            RelayProcessInfo.discovery(java.util.Map.of(), () -> wan)).orElse(null);
      } catch (IOException e) {
        err.println("kvrelay: " + e.getMessage());
        return Main.FAILED;
      }
      if (systemServer != null) {
        out.println("kvrelay: system server on " + systemServer.address().getHostString() + ":" + systemServer.port()
            + " (" + system.healthPath() + ", " + system.livePath() + ", /metrics, /engine/state, /status)");
      }
      out.flush();
      traffic = new DemoTraffic(started.workers());
      traffic.start();
      wake.await();
      return stopped();
    } catch (DemoException e) {
      err.println("kvrelay: " + e.getMessage());
      return Main.FAILED;
    } finally {
      if (systemServer != null) {
        systemServer.beginShutdown();
        systemServer.close();
      }
      if (traffic != null) {
        traffic.close();
      }
      // §6.3 order: NOT_SERVING and shutdownNow (RelayGrpcServer.close), then the engine and its planes.
      try {
        if (server != null) {
          server.close();
        }
      } finally {
        if (dc != null) {
          dc.close();
        }
      }
      if (failure.get() == null && stopReason.get() != null) {
        if (traffic != null) {
          out.println("kvrelay: demo traffic: " + traffic.storedBlocks() + " blocks stored, " + traffic.removedBlocks()
              + " removed");
        }
        out.println("kvrelay: stopped");
        out.flush();
      }
    }
  }

  /** The engine this run serves, null before it started (tests: fault injection through the engine test-jar). */
  @Nullable RelayEngine engine() {
    return engine;
  }

  /** The demo DC's workers, empty before it started (tests). */
  List<DemoWorker> workers() {
    DemoDataCenter dc = running;
    return dc == null ? List.of() : dc.workers();
  }

  /** After the latch tripped: 0 for a stop request, 1 (printed) for an engine that ended on its own. */
  private int stopped() {
    Throwable error = failure.get();
    if (error != null) {
      err.println("kvrelay: the relay ended on its own: " + error);
      return Main.FAILED;
    }
    err.println("kvrelay: stopping on " + stopReason.get());
    return Main.OK;
  }

  /** The engine's or the server's terminated() completed: a failure unless a stop was requested first. */
  private void ended(@Nullable Throwable error, String what) {
    if (stopReason.get() != null) {
      return;
    }
    Throwable cause = error != null ? error : new IllegalStateException(what);
    if (failure.compareAndSet(null, cause)) {
      wake.countDown();
    }
  }

  /**
   * Waits until the relay lists the workers' pool; false if a stop request or an engine failure came first.
   *
   * @throws DemoException if the pool does not appear before {@link #START_DEADLINE}
   */
  private boolean awaitPool(DemoDataCenter dc) throws DemoException, InterruptedException {
    long until = System.nanoTime() + START_DEADLINE.toNanos();
    while (dc.pool(EmbeddedDemo.ENDPOINT).isEmpty()) {
      if (wake.await(POLL_MS, TimeUnit.MILLISECONDS)) {
        return false;
      }
      if (System.nanoTime() > until) {
        throw new DemoException("no pool for " + EmbeddedDemo.ENDPOINT + " in time at " + DC);
      }
    }
    return true;
  }

  /** The bind address as given with its port replaced by the bound one ({@code [::1]:0} → {@code [::1]:40123}). */
  static String hostPort(BindAddress bind, int port) {
    String text = bind.text();
    return text.substring(0, text.lastIndexOf(':') + 1) + port;
  }
}
