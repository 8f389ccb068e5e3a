package dev.kvrelay.grpc.server;

import dev.kvrelay.engine.BindAddress;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.wire.ZstdCodec;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the relay's WAN listener (wan-grpc.md §6): {@code dynamo.kvrelay.v1.KvEventRelay} over the engine,
 * standard health ({@code ""} SERVING from the start; {@value #SERVICE_NAME} SERVING once bound, NOT_SERVING when
 * shutdown starts) and reflection v1, plaintext h2c on Netty with the engine's message limit and keepalive knobs.
 *
 * <pre>{@code
 * try (RelayGrpcServer server = RelayGrpcServer.builder().engine(engine).build()) {
 *   server.start();
 *   int port = server.port();
 *   ...
 * }
 * }</pre>
 *
 * <p>Closing does not close the engine.
 *
 * <p>Supervision (wan-grpc.md §6.3): once started, the server watches the engine and its own listener. If the engine
 * ends with an error (a terminal host failure, e.g. the load window publisher failing), the server records it as
 * {@link #lastError()}, marks {@value #SERVICE_NAME} NOT_SERVING, force-closes every call ({@code shutdownNow()})
 * and closes the engine (the whole relay is cancelled). If the engine ends normally (the root cancel:
 * {@link RelayEngine#close()}), the server marks NOT_SERVING and shuts down with no error. If the gRPC listener
 * terminates while nobody closed it, that is recorded as the error and the engine is closed too. A launcher blocks on
 * {@link #terminated()} or {@link #awaitTermination(Duration)}.
 */
public final class RelayGrpcServer implements AutoCloseable {
  /** The health and reflection name of the relay service. */
  public static final String SERVICE_NAME = KvEventRelayGrpc.SERVICE_NAME;
  /** Pings from clients are allowed this often (lenient: the Rust server does not police pings, §6.2). */
  static final long PERMIT_KEEPALIVE_MS = 1_000;
  /**
   * Between NOT_SERVING and {@code shutdownNow()} the listener stops taking calls ({@code shutdown()}) for at most
   * this long, so the NOT_SERVING update already queued on open health watches reaches them before their streams
   * are reset (without it the reset can overtake it on the wire).
   */
  static final long HEALTH_FLUSH_GRACE_MS = 100;
  /** How long a {@link #close()} racing the supervisor waits for the relay's own close (it waits up to 2 × 10 s). */
  static final long ENGINE_CLOSE_WAIT_S = 20;

  private final RelayEngine engine;
  private final InetSocketAddress address;
  private final int maxMessageBytes;
  private final long keepAliveMs;
  private final long keepAliveTimeoutMs;
  private final Duration shutdownTimeout;
  private final HealthStatusManager health = new HealthStatusManager();
  private final ExecutorService pumps;
  private final Object lock = new Object();
  private final ExecutorService supervisor;
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private @Nullable Server server;
  /** The port bound by {@link #start()}; kept after the transport stops, so the address stays reportable. */
  private int boundPort = -1;
  private boolean closed;
  private @Nullable Throwable lastError;

  private RelayGrpcServer(Builder b) {
    this.engine = Objects.requireNonNull(b.engine);
    RelayEngineConfig config = engine.config();
    if (b.address != null) {
      this.address = b.address;
    } else {
      // An engine without --bind (an embedded one) gets a loopback listener on an ephemeral port: port() says which.
      this.address = config.bind().map(BindAddress::socketAddress)
          .orElseGet(() -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }
    this.maxMessageBytes = config.maxMessageBytes();
    this.keepAliveMs = config.value(RelayConfigKey.KEEPALIVE_INTERVAL_MS);
    this.keepAliveTimeoutMs = config.value(RelayConfigKey.KEEPALIVE_TIMEOUT_MS);
    this.shutdownTimeout = b.shutdownTimeout;
    int threads = b.pumpThreads > 0 ? b.pumpThreads : Math.max(2, Runtime.getRuntime().availableProcessors());
    AtomicInteger n = new AtomicInteger();
    this.pumps = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "kvrelay-grpc-pump-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.supervisor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "kvrelay-grpc-supervisor");
      t.setDaemon(true);
      return t;
    });
    // "" follows the tonic-health default: SERVING from the start (wan-grpc.md §6.1 decision).
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    health.setStatus(SERVICE_NAME, ServingStatus.NOT_SERVING);
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds and starts serving; the relay service's health is SERVING once this returns.
   *
   * @throws IOException if the address cannot be bound
   * @throws IllegalStateException if already started or closed, or the engine has already terminated
   */
  public void start() throws IOException {
    Server s;
    synchronized (lock) {
      if (closed || server != null) {
        throw new IllegalStateException(closed ? "server is closed" : "server already started");
      }
      if (engine.terminated().isDone()) {
        throw new IllegalStateException("the engine has already terminated");
      }
      s = NettyServerBuilder.forAddress(address)
          .addService(ServerInterceptors.intercept(new KvEventRelayService(engine, pumps), new ZstdResponses()))
          .addService(health.getHealthService())
          .addService(ProtoReflectionServiceV1.newInstance())
          .maxInboundMessageSize(maxMessageBytes)
          .compressorRegistry(ZstdCodec.compressors())
          .decompressorRegistry(ZstdCodec.decompressors())
          .keepAliveTime(keepAliveMs, TimeUnit.MILLISECONDS)
          .keepAliveTimeout(keepAliveTimeoutMs, TimeUnit.MILLISECONDS)
          .permitKeepAliveTime(PERMIT_KEEPALIVE_MS, TimeUnit.MILLISECONDS)
          .permitKeepAliveWithoutCalls(true)
          .build();
      s.start();
      server = s;
      boundPort = ((InetSocketAddress) s.getListenSockets().get(0)).getPort();
      health.setStatus(SERVICE_NAME, ServingStatus.SERVING);
    }
    // Reactions run on the supervisor thread, never on an engine thread: closing the engine from its own control
    // thread would wait on itself.
    // The dependent stage is not needed: the reaction is stop(), whose outcome the server's own state reports.
    CompletionStage<?> unused =
        engine.terminated().whenCompleteAsync((v, e) -> stop(e == null ? null : unwrap(e), e != null), supervisor);
    Server listener = s;
    Thread watcher = new Thread(() -> watchListener(listener), "kvrelay-grpc-listener-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  /** The error that ended the transport on its own (engine failure or listener exit); empty after a clean stop. */
  public Optional<Throwable> lastError() {
    synchronized (lock) {
      return Optional.ofNullable(lastError);
    }
  }

  /**
   * Completes once the transport has stopped (after {@link #close()}, or after the supervisor stopped it):
   * normally when there is no {@link #lastError()}, exceptionally with it otherwise. Each call returns a new
   * dependent future; completing it does not affect the server.
   */
  public CompletableFuture<Void> terminated() {
    return terminated.copy();
  }

  /**
   * Blocks until the transport has stopped, for at most {@code timeout}.
   *
   * @return true if it stopped in time
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    try {
      terminated.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return true;
    } catch (TimeoutException e) {
      return false;
    }
    return true;
  }

  /**
   * Test seam (package-private, never reachable from the public API; a plain read of a field already kept): the
   * running listener, so a test in this package can stop it behind the server's back and observe the supervisor.
   */
  @Nullable Server listenerForTest() {
    synchronized (lock) {
      return server;
    }
  }

  private void watchListener(Server s) {
    try {
      s.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    stop(new IllegalStateException("the gRPC listener terminated unexpectedly"), true);
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  /**
   * The bound port (the ephemeral one when the address asked for port 0); still answered after the transport
   * stopped on its own or was closed, since the port was bound and callers report it.
   */
  public int port() {
    synchronized (lock) {
      if (boundPort < 0) {
        throw new IllegalStateException("server not started");
      }
      return boundPort;
    }
  }

  /** The health status currently published for {@code service} ({@code ""} or {@value #SERVICE_NAME}). */
  public ServingStatus healthStatus(String service) {
    io.grpc.health.v1.HealthGrpc.AsyncService h = (io.grpc.health.v1.HealthGrpc.AsyncService) health.getHealthService();
    ServingStatus[] out = {ServingStatus.SERVICE_UNKNOWN};
    h.check(io.grpc.health.v1.HealthCheckRequest.newBuilder().setService(service).build(),
        new io.grpc.stub.StreamObserver<>() {
          @Override
          public void onNext(io.grpc.health.v1.HealthCheckResponse value) {
            out[0] = value.getStatus();
          }

          @Override
          public void onError(Throwable t) {
            out[0] = ServingStatus.SERVICE_UNKNOWN;
          }

          @Override
          public void onCompleted() {}
        });
    return out[0];
  }

  /**
   * Stops: marks the relay service NOT_SERVING, refuses new calls for at most {@value #HEALTH_FLUSH_GRACE_MS} ms
   * (so open health watches receive NOT_SERVING), then force-closes every connection and call
   * ({@code shutdownNow()}, wan-grpc.md §6.3 decision) and waits up to the shutdown timeout. Idempotent; does not
   * close the engine and records no error. If the supervisor is already stopping the transport, waits (bounded) for
   * it to finish instead.
   */
  @Override
  public void close() {
    if (stop(null, false)) {
      return;
    }
    try {
      awaitTermination(shutdownTimeout.plusMillis(HEALTH_FLUSH_GRACE_MS).plusSeconds(ENGINE_CLOSE_WAIT_S));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The one stop path: the first caller wins (records {@code error} if any), later ones return at once; errors
   * after the stop began are ignored. {@code closeEngine} cancels the whole relay after the transport is down.
   *
   * @return false if a stop had already begun (nothing done)
   */
  private boolean stop(@Nullable Throwable error, boolean closeEngine) {
    Server s;
    synchronized (lock) {
      if (closed) {
        return false;
      }
      closed = true;
      lastError = error;
      s = server;
    }
    health.setStatus(SERVICE_NAME, ServingStatus.NOT_SERVING);
    if (s != null) {
      try {
        s.shutdown();
        s.awaitTermination(Math.min(HEALTH_FLUSH_GRACE_MS, shutdownTimeout.toMillis()), TimeUnit.MILLISECONDS);
        s.shutdownNow();
        s.awaitTermination(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        s.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    pumps.shutdownNow();
    if (closeEngine) {
      engine.close();
    }
    supervisor.shutdown();
    if (error == null) {
      terminated.complete(null);
    } else {
      terminated.completeExceptionally(error);
    }
    return true;
  }

  /** Not thread-safe: a set-once builder. */
  public static final class Builder {
    private @Nullable RelayEngine engine;
    private @Nullable InetSocketAddress address;
    private Duration shutdownTimeout = Duration.ofSeconds(4);
    private boolean shutdownTimeoutSet;
    private int pumpThreads;

    private Builder() {}

    /**
     * The engine to serve (required); {@link RelayGrpcServer#close()} does not close it, the supervisor does when the
     * engine fails or the listener exits unexpectedly.
     */
    public Builder engine(RelayEngine value) {
      if (engine != null) {
        throw new IllegalStateException("engine was already set");
      }
      engine = Objects.requireNonNull(value, "engine");
      return this;
    }

    /**
     * Overrides the engine's bind address (tests: e.g. 127.0.0.1 port 0). Without it the server binds the engine's
     * {@code --bind} address, or, when the engine has none, the loopback address on an ephemeral port.
     */
    public Builder address(InetSocketAddress value) {
      if (address != null) {
        throw new IllegalStateException("address was already set");
      }
      address = Objects.requireNonNull(value, "address");
      return this;
    }

    /** The longest {@link #close()} waits for the transport to stop (default 4 s). */
    public Builder shutdownTimeout(Duration value) {
      if (shutdownTimeoutSet) {
        throw new IllegalStateException("shutdownTimeout was already set");
      }
      if (value.isNegative()) {
        throw new IllegalArgumentException("shutdownTimeout must not be negative");
      }
      shutdownTimeout = value;
      shutdownTimeoutSet = true;
      return this;
    }

    /** Threads draining streams (default: available processors, at least 2). */
    public Builder pumpThreads(int value) {
      if (pumpThreads != 0) {
        throw new IllegalStateException("pumpThreads was already set");
      }
      if (value < 1) {
        throw new IllegalArgumentException("pumpThreads must be at least 1");
      }
      pumpThreads = value;
      return this;
    }

    /**
     * The server, not started yet.
     *
     * @throws IllegalStateException if the engine is missing
     */
    public RelayGrpcServer build() {
      if (engine == null) {
        throw new IllegalStateException("RelayGrpcServer.builder() is missing engine");
      }
      return new RelayGrpcServer(this);
    }
  }

  /**
   * Immutable and thread-safe (stateless): compresses a relay call's responses with zstd when the client lists it in
   * {@code grpc-accept-encoding} (wan-grpc.md §6.1); otherwise responses stay identity. Requests in zstd are accepted
   * through the decompressor registry whatever this decides.
   */
  static final class ZstdResponses implements ServerInterceptor {
    private static final Metadata.Key<String> ACCEPT_ENCODING =
        Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      if (ZstdCodec.AVAILABLE && accepts(headers.get(ACCEPT_ENCODING))) {
        call.setCompression(ZstdCodec.ENCODING);
      }
      return next.startCall(call, headers);
    }

    /** True when a comma-separated {@code grpc-accept-encoding} value lists zstd. */
    static boolean accepts(@Nullable String acceptEncoding) {
      if (acceptEncoding == null) {
        return false;
      }
      for (String token : acceptEncoding.split(",", -1)) {
        if (token.trim().equalsIgnoreCase(ZstdCodec.ENCODING)) {
          return true;
        }
      }
      return false;
    }
  }
}
