package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryCodec;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the TCP request-plane caller for recovery queries (plugins-wire §1.2). It runs one response
 * listener on the advertised IP; per query it registers a subject, sends a {@link RequestFrame} on a pooled
 * connection to the worker (ACKs pipelined, FIFO per connection), and reads the worker's call-home stream:
 * handshake → header-only prologue → data-only items → {@code complete_final} → {@code "sentinel"}, then
 * shuts its write side and closes. Every failure completes the query with a typed
 * {@link RequestPlaneException}, is counted in {@link #counters()} and logged once; so is every failure of a
 * background task (an ACK reader, a connect, the listener, a timer).
 *
 * <p>Threads (platform, daemon): one accept thread, one reader per request connection and per call-home
 * socket (bounded by {@link #MAX_CALL_HOMES}), connects on a shared I/O pool, timers on one scheduler. Query
 * futures complete on those threads, never on the caller's.
 *
 * <p>Parts (package-private): {@link CallHomeListener} (the listener and the response streams),
 * {@link RequestPools} and {@link RequestConnection} (request connections, ACK pairing, ACK timeouts),
 * {@link PendingQuery} (one query's correlation and outcome), {@link ClientContext} (what they share).
 */
public final class TcpRequestPlaneClient implements RequestPlaneClient {
  /** Call-home sockets handled at once; more are closed and counted. */
  public static final int MAX_CALL_HOMES = 1024;
  /** The payload codec this caller sends and expects (plugins-wire §1.5). */
  public static final String PAYLOAD_CODEC = "json";

  private static final Logger LOG = LoggerFactory.getLogger(TcpRequestPlaneClient.class);

  private final ClientContext ctx;
  private final Map<String, PendingQuery> pending = new ConcurrentHashMap<>();
  private final CallHomeListener listener;
  private final RequestPools pools;

  private TcpRequestPlaneClient(TcpRequestPlaneConfig config, ServerSocket listenerSocket) {
    this.ctx = new ClientContext(config);
    this.listener = new CallHomeListener(ctx, listenerSocket, pending);
    this.pools = new RequestPools(ctx);
  }

  /**
   * Starts the response listener and returns the client.
   *
   * @throws RequestPlaneException UNREACHABLE if the listener cannot bind
   * @throws IllegalArgumentException if the TLS material is unusable
   */
  public static TcpRequestPlaneClient open(TcpRequestPlaneConfig config) throws RequestPlaneException {
    Objects.requireNonNull(config, "config");
    TcpRequestPlaneClient c = new TcpRequestPlaneClient(config, CallHomeListener.bind(config));
    c.listener.start();
    LOG.info("TCP request plane: response listener on {}{}", c.responseAddress(),
        config.tls().isPresent() ? " (TLS)" : "");
    return c;
  }

  /** The listener's advertised {@code ip:port} (the {@code address} of every connection info). */
  public String responseAddress() {
    return listener.advertised();
  }

  /** The counters (failures by cause, traffic, anomalies, background failures). */
  public Counters<ClientCounter> counters() {
    return ctx.counters;
  }

  /** The configuration in force. */
  public TcpRequestPlaneConfig config() {
    return ctx.config;
  }

  /** The shared state of the parts (tests run background tasks through its guard). */
  ClientContext context() {
    return ctx;
  }

  @Override
  public CompletionStage<WorkerKvQueryResponse> query(RecoveryTarget target, WorkerKvQueryRequest request, Duration timeout) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(timeout, "timeout");
    ctx.counters.add(ClientCounter.QUERIES);
    CompletableFuture<WorkerKvQueryResponse> result = new CompletableFuture<>();
    String id = UUID.randomUUID().toString();
    PendingQuery p = new PendingQuery(ctx, id, target, result);
    if (ctx.closed()) {
      p.fail(RequestPlaneException.Kind.CLOSED, ClientCounter.CLOSED, "request plane is closed", null);
      return result;
    }
    RequestFrame frame;
    TcpEndpointPaths.Address address;
    try {
      if (target.transport().kind() != TransportAddress.Kind.TCP) {
        throw new IllegalArgumentException("transport " + target.transport() + " is not TCP");
      }
      address = TcpEndpointPaths.parse(target.transport().address());
      String path = TcpEndpointPaths.queryPath(address.endpointPath(), target.endpoint().endpoint(),
          target.queryEndpoint(request.workerId(), request.dpRank()).endpoint());
      frame = requestFrame(id, p.subject, path, request);
      p.wire = frame.encode(ctx.config.maxMessageBytes());
    } catch (IllegalArgumentException e) {
      p.fail(RequestPlaneException.Kind.UNREACHABLE, ClientCounter.BAD_TARGETS, String.valueOf(e.getMessage()), e);
      return result;
    } catch (TcpWireException e) {
      p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.OVERSIZE_FRAMES, String.valueOf(e.getMessage()), e);
      return result;
    }
    pending.put(p.subject, p); // registered before the request is sent: the worker may dial back before the ACK
    // The dependent stage is not needed: the clean-up only counts, logs and sends the stop.
    CompletableFuture<?> unused = result.whenComplete((r, e) -> {
      pending.remove(p.subject);
      if (e instanceof CancellationException && p.claimCancel()) {
        ctx.counters.add(ClientCounter.CANCELLED);
        LOG.info("TCP request plane: query {} to {} cancelled by the caller; sending stop", id, target);
        p.cancelStream();
      }
    });
    try {
      p.timer = ctx.timers.schedule(ctx.guarded("query timer", () -> p.fail(RequestPlaneException.Kind.TIMEOUT,
          ClientCounter.QUERY_TIMEOUTS, "no complete answer from " + target + " within " + timeout, null)),
          Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      ctx.io.execute(ctx.guarded("request sender", () -> pools.send(address, p)));
    } catch (RejectedExecutionException e) {
      p.fail(RequestPlaneException.Kind.CLOSED, ClientCounter.CLOSED, "request plane is closed", null);
    }
    return result;
  }

  RequestFrame requestFrame(String id, String subject, String path, WorkerKvQueryRequest request) {
    long nowNs = nowNanos();
    byte[] header = ControlJson.requestControlMessage(id, PAYLOAD_CODEC,
        new ControlJson.StreamConnectionInfo(responseAddress(), subject, id, ControlJson.STREAM_TYPE_RESPONSE),
        OptionalLong.of(nowNs));
    byte[] body = WorkerKvQueryCodec.encodeRequest(request).getBytes(StandardCharsets.UTF_8);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("x-endpoint-path", path);
    headers.put("request-id", id);
    headers.put("x-frontend-send-ts-ns", Long.toUnsignedString(nowNs));
    return new RequestFrame(path, headers, new TwoPart(header, body).encode());
  }

  private static long nowNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public void close() {
    if (!ctx.markClosed()) {
      return;
    }
    listener.close();
    for (PendingQuery p : new ArrayList<>(pending.values())) {
      p.fail(RequestPlaneException.Kind.CLOSED, ClientCounter.CLOSED, "request plane closed", null);
    }
    pools.closeAll();
    ctx.timers.shutdownNow();
    ctx.io.shutdownNow();
    LOG.info("TCP request plane: closed (listener {}); counters {}", responseAddress(), ctx.counters);
  }

  static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
