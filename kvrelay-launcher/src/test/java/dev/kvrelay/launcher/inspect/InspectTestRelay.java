package dev.kvrelay.launcher.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * Not thread-safe (one test thread; the churn thread only caches blocks): the real relay the inspect tests run
 * against — engine on the in-memory discovery, event and request planes, {@link RelayGrpcServer} on a loopback port,
 * and one simulated worker ({@code ns/backend/generate}, model {@code llama}) holding the 3 blocks of
 * {@code tokens(100, 3)} — plus the in-process runner of {@code kvrelay inspect}.
 */
final class InspectTestRelay implements AutoCloseable {
  /** How long a condition is awaited. */
  static final long DEADLINE_MS = 30_000;

  final InMemoryDiscovery discovery = new InMemoryDiscovery();
  final InMemoryEventPlane plane = InMemoryEventPlane.create();
  final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  final RelayEngine engine;
  final RelayGrpcServer server;
  final SystemTestWorkers.Worker worker;
  private final AtomicBoolean churning = new AtomicBoolean();
  private @Nullable Thread churn;

  /** Output and exit status of one in-process run. */
  record Run(int status, String out, String err) {}

  private InspectTestRelay(UnaryOperator<RelayEngineConfig.Builder> tune) throws Exception {
    RelayEngineConfig config = tune.apply(RelayEngineConfig.builder().dcId("dc-a").watchAll(true)
        .expectedUniqueBlocks(4096).bind("127.0.0.1:5561")).build();
    engine = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).requestPlane(requests)
        .poolThreads(2).build();
    server = RelayGrpcServer.builder().engine(engine).address(new InetSocketAddress("127.0.0.1", 0)).build();
    server.start();
    worker = SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane, requests);
    await("pool in catalog", () -> engine.catalog().pools().size() == 1);
    assertThat(worker.cache(tokens(100, 3))).isEqualTo(3);
    await("3 blocks resident", () -> resident(engine.stats()) == 3);
  }

  /** A started relay with the default test configuration. */
  static InspectTestRelay start() throws Exception {
    return new InspectTestRelay(b -> b);
  }

  /** A started relay whose configuration {@code tune} adjusts. */
  static InspectTestRelay start(UnaryOperator<RelayEngineConfig.Builder> tune) throws Exception {
    return new InspectTestRelay(tune);
  }

  /** The relay's gRPC listener. */
  String target() {
    return "127.0.0.1:" + server.port();
  }

  /** {@code blocks} full blocks of consecutive token ids from {@code first}. */
  static int[] tokens(int first, int blocks) {
    int[] t = new int[SystemTestWorkers.BLOCK_SIZE * blocks];
    for (int i = 0; i < t.length; i++) {
      t[i] = first + i;
    }
    return t;
  }

  /** {@code tokens} as {@code --tokens} wants them. */
  static String csv(int[] tokens) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < tokens.length; i++) {
      b.append(i == 0 ? "" : ",").append(tokens[i]);
    }
    return b.toString();
  }

  /** Runs {@code kvrelay inspect ARGS} in process. */
  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new InspectCommand());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int status = cl.execute(args);
    return new Run(status, out.toString(), err.toString());
  }

  /**
   * Thread-safe (the output buffers are synchronized): {@code kvrelay inspect} running on its own thread, for
   * watching verbs whose output is read while they run.
   */
  static final class Background {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final java.util.concurrent.CompletableFuture<Integer> status = new java.util.concurrent.CompletableFuture<>();

    private Background(String... args) {
      CommandLine cl = new CommandLine(new InspectCommand());
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      Thread t = new Thread(() -> status.complete(cl.execute(args)), "inspect-background");
      t.setDaemon(true);
      t.start();
    }

    /** What the command printed to stdout so far. */
    String out() {
      return out.toString();
    }

    /** Waits for the command's end (at most {@link #DEADLINE_MS}). */
    Run await() throws Exception {
      int s = status.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
      return new Run(s, out.toString(), err.toString());
    }
  }

  /**
   * Thread-safe (a concurrent map): the relay's own published updates of one in-process stream, recorded by key
   * (window sequence, catalog revision) on a drain thread until closed.
   */
  static final class Recorder<T> implements AutoCloseable {
    private final java.util.concurrent.ConcurrentHashMap<Long, T> byKey = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread drain;

    Recorder(dev.kvrelay.engine.wire.RelayStream<T> stream, java.util.function.ToLongFunction<T> key) {
      drain = new Thread(() -> {
        try (stream) {
          while (running.get()) {
            T next = stream.poll(50, TimeUnit.MILLISECONDS);
            if (next != null) {
              byKey.put(key.applyAsLong(next), next);
            }
          }
        } catch (Exception e) {
          byKey.clear(); // a lagged or failed recorder answers nothing, so a test waiting on it fails
          running.set(false);
        }
      }, "recorder");
      drain.setDaemon(true);
      drain.start();
    }

    /** The update recorded under {@code key}, awaited up to {@link #DEADLINE_MS}. */
    T get(long key) throws InterruptedException {
      await("the relay's own update " + Long.toUnsignedString(key), () -> byKey.containsKey(key));
      return byKey.get(key);
    }

    /** Awaits (up to {@link #DEADLINE_MS}) an update that {@code test} accepts. */
    void awaitAny(String what, java.util.function.Predicate<T> test) throws InterruptedException {
      await(what, () -> byKey.values().stream().anyMatch(test));
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      drain.join(5_000);
    }
  }

  /** Starts {@code kvrelay inspect ARGS} on its own thread. */
  static Background background(String... args) {
    return new Background(args);
  }

  /** Polls {@code condition} every 10 ms until it holds, failing after {@link #DEADLINE_MS}. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  private static long resident(RelayEngineStats s) {
    return s.pools().isEmpty() || s.pools().get(0).actor() == null ? -1
        : s.pools().get(0).actor().producer().residentCount();
  }

  /** Keeps the worker caching new blocks (one per 20 ms) so the pool publishes deltas, until {@link #close}. */
  void startChurn() {
    churning.set(true);
    Thread t = new Thread(() -> {
      int next = 1_000_000;
      while (churning.get()) {
        worker.cache(tokens(next, 1));
        next += SystemTestWorkers.BLOCK_SIZE;
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "churn");
    t.setDaemon(true);
    t.start();
    churn = t;
  }

  @Override
  public void close() throws Exception {
    churning.set(false);
    if (churn != null) {
      churn.join(10_000);
    }
    server.close();
    engine.close();
    requests.close();
    plane.close();
    discovery.close();
  }
}
