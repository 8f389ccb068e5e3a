package dev.kvrelay.launcher;

import dev.kvrelay.engine.BindAddress;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.RelayEngineException;
import dev.kvrelay.grpc.server.RelayGrpcServer;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe ({@link #requestStop} and {@link #close} may be called from any thread, e.g. a signal handler; the
 * attached list is guarded by this object's monitor): one running relay process — the engine, its WAN gRPC server
 * (when the configuration has a bind address) and the plugins it runs on — with the lifecycle of
 * {@code producer.md} §7.6.
 *
 * <p>Lifecycle: {@link #start} opens nothing itself: it builds the engine on the given {@link OpenPlugins} (which
 * it owns from then on), then binds and starts the gRPC server, and returns once the relay service's health is
 * SERVING. Anything that belongs to the running relay — the system HTTP server is the first of them — is started
 * after that and handed over with {@link #attach}. {@link #await} returns at the first of a stop request
 * ({@link #requestStop}, e.g. SIGTERM) or a terminal failure of the engine or of the transport (their
 * {@code terminated()} future completing on its own). {@link #close} then stops in order (wan-grpc.md §6.3): the
 * attached resources in reverse order of attachment, the gRPC server (NOT_SERVING, then {@code shutdownNow}), the
 * engine, and the plugins (request plane, event plane, discovery).
 */
public final class StockRelay implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StockRelay.class);

  private final RelayEngine engine;
  private final @Nullable RelayGrpcServer server;
  private final OpenPlugins plugins;
  private final Deque<AutoCloseable> attached = new ArrayDeque<>();
  private final CountDownLatch wake = new CountDownLatch(1);
  private final AtomicReference<@Nullable String> stopReason = new AtomicReference<>();
  private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
  private boolean closed;

  /**
   * Immutable: why {@link #await} returned.
   *
   * @param stopReason the stop request's reason (e.g. {@code SIGTERM}), or null
   * @param failure the terminal failure that ended the relay on its own, or null
   */
  public record Ended(@Nullable String stopReason, @Nullable Throwable failure) {
    /** True for an orderly stop without failure: exit status 0. */
    public boolean clean() {
      return failure == null;
    }
  }

  private StockRelay(RelayEngine engine, @Nullable RelayGrpcServer server, OpenPlugins plugins) {
    this.engine = engine;
    this.server = server;
    this.plugins = plugins;
  }

  /**
   * Starts the relay on {@code plugins} (owned by the relay from now on, closed on failure too).
   *
   * @param config the validated engine configuration; with a bind address the gRPC server is started on it
   * @param plugins the open plugins
   * @param poolThreads the engine's pool threads, or 0 for the engine's default (one per core)
   * @throws StartException if the engine refuses to start or the address cannot be bound (everything is closed)
   */
  public static StockRelay start(RelayEngineConfig config, OpenPlugins plugins, int poolThreads)
      throws StartException {
    return start(config, Optional.empty(), Optional.empty(), plugins, poolThreads);
  }

  /**
   * As {@link #start(RelayEngineConfig, OpenPlugins, int)}, in file mode when {@code sourcesFile} is present: the
   * watched namespaces come from that document (producer §8.2), polled by the engine, instead of the config's scope.
   *
   * @param connectionRevision {@code DYN_RELAY_CONNECTION_REVISION} (file mode only)
   * @throws StartException also when no valid sources document could be read at start
   */
  public static StockRelay start(RelayEngineConfig config, Optional<java.nio.file.Path> sourcesFile,
      Optional<String> connectionRevision, OpenPlugins plugins, int poolThreads) throws StartException {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(plugins, "plugins");
    RelayEngine engine;
    try {
      RelayEngine.Builder b = RelayEngine.builder().config(config).discovery(plugins.discovery())
          .eventPlane(plugins.eventPlane()).requestPlane(plugins.requestPlane());
      sourcesFile.ifPresent(f -> b.sourcesFile(f, connectionRevision.orElse(null)));
      if (poolThreads > 0) {
        b.poolThreads(poolThreads);
      }
      engine = b.build();
    } catch (RelayEngineException | RuntimeException e) {
      plugins.close();
      throw new StartException("the relay engine did not start: " + e.getMessage(), e);
    }
    RelayGrpcServer server = null;
    Optional<BindAddress> bind = config.bind();
    if (bind.isPresent()) {
      try {
        server = RelayGrpcServer.builder().engine(engine).build();
        server.start();
        if (server.healthStatus(RelayGrpcServer.SERVICE_NAME) != ServingStatus.SERVING) {
          throw new IOException("the relay service is not SERVING after start");
        }
      } catch (IOException | RuntimeException e) {
        if (server != null) {
          server.close();
        }
        engine.close();
        plugins.close();
        throw new StartException("cannot serve on " + bind.get() + ": " + e.getMessage(), e);
      }
    }
    StockRelay relay = new StockRelay(engine, server, plugins);
    // The dependent stages are not needed: ended() cannot throw, and records what it saw in the relay's state.
    CompletableFuture<?> unusedEngine =
        engine.terminated().whenComplete((ok, error) -> relay.ended(error, "the relay engine stopped"));
    if (server != null) {
      CompletableFuture<?> unusedServer =
          server.terminated().whenComplete((ok, error) -> relay.ended(error, "the WAN transport stopped"));
    }
    LOG.info("relay started: dc_id={} ({}) incarnation={} scope={} wan={} plugins: {}", config.dcName(), config.dcId(),
        Long.toUnsignedString(engine.identity().relayIncarnation()), config.scope(),
        relay.boundAddress().orElse("off"), plugins.names());
    return relay;
  }

  /** The running engine. */
  public RelayEngine engine() {
    return engine;
  }

  /** The gRPC server, when the configuration has a bind address. */
  public Optional<RelayGrpcServer> grpcServer() {
    return Optional.ofNullable(server);
  }

  /** The plugins the relay runs on. */
  public OpenPlugins plugins() {
    return plugins;
  }

  /** The WAN address as configured with the bound port ({@code 0.0.0.0:0} → {@code 0.0.0.0:40123}), if serving. */
  public Optional<String> boundAddress() {
    if (server == null) {
      return Optional.empty();
    }
    String text = engine.config().bind().orElseThrow().text();
    return Optional.of(text.substring(0, text.lastIndexOf(':') + 1) + server.port());
  }

  /**
   * Hands {@code resource} to the relay: it is closed first on {@link #close()}, before the gRPC server and the
   * engine, in reverse order of attachment. The seam for what runs beside the relay, e.g. the system HTTP server.
   * A resource attached after {@link #close()} is closed at once.
   */
  public void attach(AutoCloseable resource) {
    Objects.requireNonNull(resource, "resource");
    boolean closeNow;
    synchronized (this) {
      closeNow = closed;
      if (!closeNow) {
        attached.push(resource);
      }
    }
    if (closeNow) {
      closeQuietly(resource);
    }
  }

  /**
   * Asks {@link #await} to return ({@code why} names the cause, e.g. {@code SIGTERM}); the first request wins.
   * Never blocks.
   */
  public void requestStop(String why) {
    if (stopReason.compareAndSet(null, why)) {
      LOG.info("stop requested: {}", why);
      wake.countDown();
    }
  }

  /** Waits for a stop request or a terminal failure, whichever comes first. */
  public Ended await() throws InterruptedException {
    wake.await();
    return ended();
  }

  /** What ended the run so far: the failure if one came before a stop request. */
  private Ended ended() {
    return new Ended(stopReason.get(), failure.get());
  }

  /** The engine's or the server's terminated() completed: a failure unless a stop was requested first. */
  private void ended(@Nullable Throwable error, String what) {
    if (stopReason.get() != null) {
      return;
    }
    Throwable cause = error != null ? error : new IllegalStateException(what);
    if (failure.compareAndSet(null, cause)) {
      LOG.error("terminal failure, stopping: {}", cause.toString());
      wake.countDown();
    }
  }

  /**
   * Stops in order: attached resources (reverse order), the gRPC server, the engine, the plugins. Idempotent.
   * After it, a transport error recorded by the server counts as a failure ({@code producer.md} §7.6: a WAN error
   * in the final health gives status 1).
   */
  @Override
  public void close() {
    Deque<AutoCloseable> toClose;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toClose = new ArrayDeque<>(attached);
      attached.clear();
    }
    for (AutoCloseable c : toClose) {
      closeQuietly(c);
    }
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      try {
        engine.close();
      } finally {
        plugins.close();
      }
    }
    if (server != null) {
      server.lastError().ifPresent(e -> failure.compareAndSet(null, e));
    }
    LOG.info("relay stopped");
  }

  /** After {@link #close()}: the final outcome (a transport error recorded during the stop included). */
  public Ended outcome() {
    return ended();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("closing {} failed: {}", c, e.toString());
    }
  }
}
