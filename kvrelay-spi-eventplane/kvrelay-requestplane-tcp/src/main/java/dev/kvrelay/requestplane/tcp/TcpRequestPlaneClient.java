package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryCodec;
import dev.kvrelay.spi.eventplane.WorkerKvQueryDecodeException;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLServerSocket;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the TCP request-plane caller for recovery queries (plugins-wire §1.2). It runs one response
 * listener on the advertised IP; per query it registers a subject, sends a {@link RequestFrame} on a pooled
 * connection to the worker (ACKs pipelined, FIFO per connection), and reads the worker's call-home stream:
 * handshake → header-only prologue → data-only items → {@code complete_final} → {@code "sentinel"}, then
 * shuts its write side and closes. Every failure completes the query with a typed
 * {@link RequestPlaneException}, is counted in {@link #counters()} and logged once.
 *
 * <p>Threads (platform, daemon): one accept thread, one reader per request connection and per call-home
 * socket (bounded by {@link #MAX_CALL_HOMES}), connects on a shared I/O pool, timers on one scheduler. Query
 * futures complete on those threads, never on the caller's.
 */
public final class TcpRequestPlaneClient implements RequestPlaneClient {
  /** Call-home sockets handled at once; more are closed and counted. */
  public static final int MAX_CALL_HOMES = 1024;
  /** The payload codec this caller sends and expects (plugins-wire §1.5). */
  public static final String PAYLOAD_CODEC = "json";

  private static final Logger LOG = LoggerFactory.getLogger(TcpRequestPlaneClient.class);
  private static final Duration SENTINEL_WAIT = Duration.ofSeconds(10);

  private final TcpRequestPlaneConfig config;
  private final ServerSocket listener;
  private final String advertised;
  private final Counters<ClientCounter> counters = new Counters<>(ClientCounter.class);
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final Map<String, Pool> pools = new ConcurrentHashMap<>();
  private final Semaphore callHomePermits = new Semaphore(MAX_CALL_HOMES);
  private final ScheduledExecutorService timers;
  private final ExecutorService io;
  private final Thread acceptor;
  private volatile boolean closed;

  private TcpRequestPlaneClient(TcpRequestPlaneConfig config, ServerSocket listener) {
    this.config = config;
    this.listener = listener;
    this.advertised = TcpEndpointPaths.Address.hostPort(config.responseHost().getHostAddress(), listener.getLocalPort());
    this.timers = Executors.newSingleThreadScheduledExecutor(daemon("kvrelay-tcp-rp-timer"));
    this.io = Executors.newCachedThreadPool(daemon("kvrelay-tcp-rp-io"));
    this.acceptor = daemon("kvrelay-tcp-rp-accept").newThread(this::acceptLoop);
  }

  /**
   * Starts the response listener and returns the client.
   *
   * @throws RequestPlaneException UNREACHABLE if the listener cannot bind
   * @throws IllegalArgumentException if the TLS material is unusable
   */
  public static TcpRequestPlaneClient open(TcpRequestPlaneConfig config) throws RequestPlaneException {
    Objects.requireNonNull(config, "config");
    ServerSocket ss;
    try {
      if (config.tls().isPresent()) {
        ss = PemTls.serverContext(config.tls().get()).getServerSocketFactory().createServerSocket();
        PemTls.configure((SSLServerSocket) ss, config.tls().get());
      } else {
        ss = new ServerSocket();
      }
      ss.setReuseAddress(true);
      ss.bind(new InetSocketAddress(config.responseHost(), config.responsePort()), 256);
    } catch (IOException e) {
      throw new RequestPlaneException(RequestPlaneException.Kind.UNREACHABLE,
          "cannot bind the TCP response listener on " + config.responseHost().getHostAddress() + ":"
              + config.responsePort() + ": " + e.getMessage(), e);
    }
    TcpRequestPlaneClient c = new TcpRequestPlaneClient(config, ss);
    c.acceptor.start();
    LOG.info("TCP request plane: response listener on {}{}", c.advertised, config.tls().isPresent() ? " (TLS)" : "");
    return c;
  }

  /** The listener's advertised {@code ip:port} (the {@code address} of every connection info). */
  public String responseAddress() {
    return advertised;
  }

  /** The counters (failures by cause, traffic, anomalies). */
  public Counters<ClientCounter> counters() {
    return counters;
  }

  /** The configuration in force. */
  public TcpRequestPlaneConfig config() {
    return config;
  }

  // ------------------------------------------------------------------ query

  @Override
  public CompletionStage<WorkerKvQueryResponse> query(RecoveryTarget target, WorkerKvQueryRequest request, Duration timeout) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(timeout, "timeout");
    counters.add(ClientCounter.QUERIES);
    CompletableFuture<WorkerKvQueryResponse> result = new CompletableFuture<>();
    String id = UUID.randomUUID().toString();
    Pending p = new Pending(id, target, result);
    if (closed) {
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
      p.wire = frame.encode(config.maxMessageBytes());
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
      if (e instanceof CancellationException && p.finished.compareAndSet(false, true)) {
        counters.add(ClientCounter.CANCELLED);
        LOG.info("TCP request plane: query {} to {} cancelled by the caller; sending stop", id, target);
        p.cancelStream();
      }
    });
    try {
      p.timer = timers.schedule(() -> p.fail(RequestPlaneException.Kind.TIMEOUT, ClientCounter.QUERY_TIMEOUTS,
          "no complete answer from " + target + " within " + timeout, null), Math.max(0, timeout.toNanos()),
          TimeUnit.NANOSECONDS);
      io.execute(() -> {
        // a pool retires when its last connection closes; a sender that raced with that takes a fresh one
        while (!pools.computeIfAbsent(address.hostPort(), k -> new Pool(address)).send(p)) {
          Thread.onSpinWait();
        }
      });
    } catch (RejectedExecutionException e) {
      p.fail(RequestPlaneException.Kind.CLOSED, ClientCounter.CLOSED, "request plane is closed", null);
    }
    return result;
  }

  RequestFrame requestFrame(String id, String subject, String path, WorkerKvQueryRequest request) {
    long nowNs = nowNanos();
    byte[] header = ControlJson.requestControlMessage(id, PAYLOAD_CODEC,
        new ControlJson.StreamConnectionInfo(advertised, subject, id, ControlJson.STREAM_TYPE_RESPONSE),
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

  // ------------------------------------------------------------------ one query's state

  /** Thread-safe (state under its own monitor): one query in flight. */
  private final class Pending {
    final String id;
    final String subject = UUID.randomUUID().toString();
    final RecoveryTarget target;
    final CompletableFuture<WorkerKvQueryResponse> result;
    byte[] wire = new byte[0];
    volatile @Nullable ScheduledFuture<?> timer;
    private final java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
    private @Nullable Socket stream;
    private boolean calledHome;

    Pending(String id, RecoveryTarget target, CompletableFuture<WorkerKvQueryResponse> result) {
      this.id = id;
      this.target = target;
      this.result = result;
    }

    /** Attaches the call-home socket; false if the query is over or already attached. */
    synchronized boolean attach(Socket s) {
      if (result.isDone() || calledHome) {
        return false;
      }
      calledHome = true;
      stream = s;
      return true;
    }

    synchronized boolean calledHome() {
      return calledHome;
    }

    /** True once, for the first outcome (answer, failure or the caller's cancel). */
    boolean finish() {
      return !result.isDone() && finished.compareAndSet(false, true);
    }

    void succeed(WorkerKvQueryResponse r) {
      if (finish()) {
        counters.add(ClientCounter.ANSWERS); // counted before completion: a caller sees the count with the answer
        cancelTimer();
        result.complete(r);
      }
    }

    /** Fails the query once: counts, logs, kills an attached stream. */
    void fail(RequestPlaneException.Kind kind, ClientCounter counter, String message, @Nullable Throwable cause) {
      RequestPlaneException e = cause == null ? new RequestPlaneException(kind, message)
          : new RequestPlaneException(kind, message, cause);
      if (!finish()) {
        return;
      }
      counters.add(counter);
      cancelTimer();
      LOG.warn("TCP request plane: query {} ({}) to {} failed, {} / {}: {}", id, subject, target, kind, counter, message);
      result.completeExceptionally(e);
      Socket s;
      synchronized (this) {
        s = stream;
      }
      if (s != null) {
        sendControl(s, ControlJson.Control.KILL);
        closeQuietly(s);
      }
    }

    void cancelStream() {
      cancelTimer();
      Socket s;
      synchronized (this) {
        s = stream;
      }
      if (s != null) {
        sendControl(s, ControlJson.Control.STOP);
        try {
          s.shutdownOutput();
        } catch (IOException ignored) {
          // the reader sees the end
        }
      }
    }

    private void cancelTimer() {
      ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
      }
    }
  }

  private void sendControl(Socket s, ControlJson.Control c) {
    try {
      synchronized (s) {
        OutputStream out = s.getOutputStream();
        out.write(TwoPart.headerOnly(c.json()).encode());
        out.flush();
      }
      if (c == ControlJson.Control.KILL) {
        counters.add(ClientCounter.KILLS_SENT);
      }
    } catch (IOException ignored) {
      // the peer is gone: nothing to stop
    }
  }

  // ------------------------------------------------------------------ request connections

  /** Thread-safe (synchronized): up to {@code connectionsPerWorker} request connections to one worker address. */
  private final class Pool {
    final TcpEndpointPaths.Address address;
    final List<Connection> connections = new ArrayList<>();
    private int connecting;
    private boolean retired;

    Pool(TcpEndpointPaths.Address address) {
      this.address = address;
    }

    /** Sends {@code p} on one of this pool's connections; false if the pool has retired (use a fresh one). */
    boolean send(Pending p) {
      if (p.result.isDone()) {
        return true;
      }
      Connection c;
      try {
        c = pick();
      } catch (IOException e) {
        p.fail(RequestPlaneException.Kind.UNREACHABLE, ClientCounter.CONNECT_FAILURES,
            "cannot connect to " + address.hostPort() + ": " + e, e);
        return true;
      }
      if (c == null) {
        return false;
      }
      c.send(p);
      return true;
    }

    private @Nullable Connection pick() throws IOException {
      synchronized (this) {
        while (true) {
          if (retired) {
            return null;
          }
          Connection best = null;
          for (Connection c : connections) {
            if (best == null || c.outstanding() < best.outstanding()) {
              best = c;
            }
          }
          boolean full = connections.size() + connecting >= config.connectionsPerWorker();
          if (best != null && (best.outstanding() == 0 || full)) {
            return best;
          }
          if (!full) {
            connecting++; // a reserved slot: concurrent senders never open more than the cap
            break;
          }
          try {
            wait(); // every slot is being connected: use the first one that lands
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a connection", e);
          }
        }
      }
      Connection fresh;
      try {
        fresh = connect();
      } catch (IOException e) {
        synchronized (this) {
          connecting--;
          notifyAll();
          retireIfIdle();
        }
        throw e;
      }
      synchronized (this) {
        connecting--;
        notifyAll();
        if (closed) {
          fresh.close("request plane closed");
          throw new IOException("request plane closed");
        }
        connections.add(fresh);
      }
      return fresh;
    }

    private Connection connect() throws IOException {
      Socket s = new Socket();
      try {
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(address.host(), address.port()), (int) config.connectTimeout().toMillis());
      } catch (IOException e) {
        closeQuietly(s);
        throw e;
      }
      counters.add(ClientCounter.CONNECTIONS_OPENED);
      LOG.debug("TCP request plane: connected to {}", address.hostPort());
      Connection c = new Connection(this, s);
      io.execute(c::readAcks);
      return c;
    }

    /**
     * Drops a closed connection; the last one (or a failed connect with none open) retires the pool, so no state
     * is kept per worker address ever seen. Lock order: pool, then connection; never the reverse.
     */
    synchronized void remove(Connection c) {
      connections.remove(c);
      retireIfIdle();
    }

    private void retireIfIdle() {
      if (connections.isEmpty() && connecting == 0 && !retired) {
        retired = true;
        pools.remove(address.hostPort(), this);
        notifyAll();
      }
    }

    void closeAll() {
      List<Connection> all;
      synchronized (this) {
        all = new ArrayList<>(connections);
        connections.clear();
      }
      all.forEach(c -> c.close("request plane closed"));
    }
  }

  /** Thread-safe (writes and the ACK queue under one monitor): one pipelined request connection. */
  private final class Connection {
    final Pool pool;
    final Socket socket;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private boolean dead;

    Connection(Pool pool, Socket socket) {
      this.pool = pool;
      this.socket = socket;
    }

    synchronized int outstanding() {
      return waiters.size();
    }

    void send(Pending p) {
      Waiter w = new Waiter(p);
      IOException writeFailure = null;
      synchronized (this) {
        if (dead) {
          p.fail(RequestPlaneException.Kind.UNREACHABLE, ClientCounter.CONNECTIONS_LOST,
              "connection to " + pool.address.hostPort() + " closed before the request was sent", null);
          return;
        }
        waiters.add(w);
        try {
          OutputStream out = socket.getOutputStream();
          out.write(p.wire);
          out.flush();
        } catch (IOException e) {
          waiters.remove(w);
          writeFailure = e;
        }
      }
      if (writeFailure != null) {
        // outside this connection's monitor: close() takes the pool's (lock order pool → connection)
        p.fail(RequestPlaneException.Kind.UNREACHABLE, ClientCounter.CONNECTIONS_LOST,
            "writing to " + pool.address.hostPort() + " failed: " + writeFailure, writeFailure);
        close("write failed");
        return;
      }
      try {
        w.timer = timers.schedule(() -> ackTimeout(w), config.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException ignored) {
        // closing: close() fails the query
      }
    }

    private void ackTimeout(Waiter w) {
      synchronized (this) {
        if (w.acked) {
          return;
        }
      }
      if (!w.pending.calledHome()) {
        w.pending.fail(RequestPlaneException.Kind.TIMEOUT, ClientCounter.ACK_TIMEOUTS,
            "no ACK from " + pool.address.hostPort() + " within " + config.requestTimeout(), null);
      }
      // FIFO pairing is lost once an ACK is overdue: retire the connection.
      close("ACK timeout");
    }

    void readAcks() {
      try {
        InputStream in = new BufferedInputStream(socket.getInputStream());
        while (true) {
          String ack = AckFrame.read(in, config.maxMessageBytes());
          Waiter w;
          synchronized (this) {
            w = waiters.poll();
            if (w != null) {
              w.acked = true;
            }
          }
          if (w == null) {
            throw new TcpWireException(TcpWireException.Reason.MALFORMED, "an ACK with no request outstanding");
          }
          ScheduledFuture<?> t = w.timer;
          if (t != null) {
            t.cancel(false);
          }
          onAck(w.pending, ack);
        }
      } catch (EOFException e) {
        close("closed by the worker");
      } catch (IOException e) {
        close(e.toString());
      } catch (TcpWireException e) {
        LOG.warn("TCP request plane: bad ACK stream from {}: {}", pool.address.hostPort(), e.getMessage());
        close(String.valueOf(e.getMessage()));
      }
    }

    private void onAck(Pending p, String ack) {
      if (p.result.isDone()) {
        counters.add(ClientCounter.LATE_ACKS);
        return;
      }
      if (ack.isEmpty()) {
        counters.add(ClientCounter.ACKS_ACCEPTED);
      } else if (ack.startsWith(AckFrame.OVERLOADED_PREFIX)) {
        p.fail(RequestPlaneException.Kind.REJECTED, ClientCounter.REJECTED_OVERLOADED, ack, null);
      } else if (ack.startsWith(AckFrame.UNAVAILABLE_PREFIX)) {
        p.fail(RequestPlaneException.Kind.REJECTED, ClientCounter.REJECTED_UNAVAILABLE, ack, null);
      } else {
        p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.REJECTED_OTHER_ACK,
            "worker replied with a non-empty ACK: " + ack, null);
      }
    }

    void close(String why) {
      List<Waiter> orphans;
      synchronized (this) {
        if (dead) {
          return;
        }
        dead = true;
        orphans = new ArrayList<>(waiters);
        waiters.clear();
      }
      pool.remove(this);
      closeQuietly(socket);
      LOG.debug("TCP request plane: connection to {} closed ({}), {} ACKs outstanding", pool.address.hostPort(), why,
          orphans.size());
      for (Waiter w : orphans) {
        ScheduledFuture<?> t = w.timer;
        if (t != null) {
          t.cancel(false);
        }
        if (!w.pending.calledHome()) {
          w.pending.fail(closed ? RequestPlaneException.Kind.CLOSED : RequestPlaneException.Kind.UNREACHABLE,
              closed ? ClientCounter.CLOSED : ClientCounter.CONNECTIONS_LOST,
              "connection to " + pool.address.hostPort() + " lost before the ACK (" + why + ")", null);
        }
      }
    }
  }

  /** Not thread-safe: confined to its {@link Connection}'s monitor: one ACK awaited. */
  private static final class Waiter {
    final Pending pending;
    boolean acked;
    volatile @Nullable ScheduledFuture<?> timer;

    Waiter(Pending pending) {
      this.pending = pending;
    }
  }

  // ------------------------------------------------------------------ response listener

  private void acceptLoop() {
    while (!closed) {
      Socket s;
      try {
        s = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.error("TCP request plane: response listener {} failed: {}", advertised, e.toString());
        }
        return;
      }
      if (!callHomePermits.tryAcquire()) {
        counters.add(ClientCounter.CALL_HOMES_REFUSED);
        LOG.warn("TCP request plane: refused a call-home from {}: {} sockets open", s.getRemoteSocketAddress(),
            MAX_CALL_HOMES);
        closeQuietly(s);
        continue;
      }
      try {
        io.execute(() -> {
          try {
            callHome(s);
          } finally {
            callHomePermits.release();
          }
        });
      } catch (RejectedExecutionException e) {
        callHomePermits.release();
        closeQuietly(s);
      }
    }
  }

  private void callHome(Socket s) {
    counters.add(ClientCounter.CALL_HOMES);
    Pending p = null;
    try {
      s.setTcpNoDelay(true);
      s.setSoLinger(true, 0);
      s.setSoTimeout((int) config.handshakeTimeout().toMillis());
      InputStream in = new BufferedInputStream(s.getInputStream());
      String subject;
      try {
        TwoPart hs = TwoPart.read(in, config.maxMessageBytes());
        if (hs.kind() != TwoPart.Kind.HEADER_ONLY) {
          throw new TcpWireException(TcpWireException.Reason.MALFORMED, "handshake frame is " + hs.kind());
        }
        subject = ControlJson.parseHandshake(hs.header());
      } catch (SocketTimeoutException e) {
        counters.add(ClientCounter.BAD_HANDSHAKES);
        LOG.warn("TCP request plane: timed out waiting for CallHomeHandshake from {}", s.getRemoteSocketAddress());
        return;
      } catch (TcpWireException | IOException e) {
        // includes a failed TLS handshake (e.g. no client certificate under mTLS)
        counters.add(ClientCounter.BAD_HANDSHAKES);
        LOG.warn("TCP request plane: bad call-home handshake from {}: {}", s.getRemoteSocketAddress(), e.toString());
        return;
      }
      p = pending.get(subject);
      if (p == null) {
        counters.add(ClientCounter.UNKNOWN_SUBJECTS);
        LOG.warn("TCP request plane: call-home for unknown subject {} from {}", subject, s.getRemoteSocketAddress());
        return;
      }
      if (!p.attach(s)) {
        counters.add(ClientCounter.DUPLICATE_CALL_HOMES);
        LOG.warn("TCP request plane: extra call-home for subject {} (query over or already attached)", subject);
        return;
      }
      counters.add(ClientCounter.STREAMS_ATTACHED);
      s.setSoTimeout(0); // the prologue has no timeout (plugins-wire §1.2 step 5); the query timer bounds it
      readStream(p, s, in);
    } catch (IOException e) {
      if (p != null) {
        p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.STREAMS_CUT,
            "Stream ended before generation completed: " + e, e);
      }
    } finally {
      closeQuietly(s);
    }
  }

  private void readStream(Pending p, Socket s, InputStream in) throws IOException {
    long max = config.maxMessageBytes();
    try {
      TwoPart prologue = TwoPart.read(in, max);
      if (prologue.kind() != TwoPart.Kind.HEADER_ONLY) {
        p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.PROTOCOL_VIOLATIONS,
            "malformed prologue: a " + prologue.kind() + " frame", null);
        return;
      }
      String error;
      try {
        error = ControlJson.parsePrologue(prologue.header());
      } catch (TcpWireException e) {
        p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.PROTOCOL_VIOLATIONS,
            "malformed prologue: " + e.getMessage(), e);
        return;
      }
      if (error != null) {
        p.fail(RequestPlaneException.Kind.REJECTED, ClientCounter.PROLOGUE_ERRORS, "worker error: " + error, null);
        return;
      }
      WorkerKvQueryResponse first = null;
      while (true) {
        TwoPart f = TwoPart.read(in, max);
        if (f.kind() != TwoPart.Kind.DATA_ONLY) {
          p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.PROTOCOL_VIOLATIONS,
              "expected a data-only response item, got a " + f.kind() + " frame " + preview(f), null);
          return;
        }
        ControlJson.StreamItem item = ControlJson.parseItem(f.body(), max);
        JsonValue data = item.data();
        if (data != null) {
          if (first == null) {
            try {
              first = WorkerKvQueryCodec.decodeResponse(data);
            } catch (WorkerKvQueryDecodeException e) {
              p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.UNDECODABLE_RESPONSES,
                  "response item is not a WorkerKvQueryResponse: " + e.getMessage(), e);
              return;
            }
          } else {
            counters.add(ClientCounter.EXTRA_ITEMS);
            LOG.warn("TCP request plane: query {} got more than one response item; extra ignored", p.id);
          }
        }
        if (item.completeFinal()) {
          break;
        }
      }
      if (first == null) {
        p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.PROTOCOL_VIOLATIONS,
            "stream completed without a response item", null);
        return;
      }
      p.succeed(first);
      expectSentinel(p, s, in);
    } catch (EOFException e) {
      p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.STREAMS_CUT,
          "Stream ended before generation completed", e);
    } catch (TcpWireException e) {
      ClientCounter c = switch (e.reason()) {
        case OVERSIZE -> ClientCounter.OVERSIZE_FRAMES;
        case TRUNCATED -> ClientCounter.STREAMS_CUT;
        case MALFORMED -> ClientCounter.PROTOCOL_VIOLATIONS;
      };
      String msg = e.reason() == TcpWireException.Reason.TRUNCATED
          ? "Stream ended before generation completed: " + e.getMessage() : String.valueOf(e.getMessage());
      p.fail(RequestPlaneException.Kind.PROTOCOL, c, msg, e);
    }
  }

  private void expectSentinel(Pending p, Socket s, InputStream in) {
    try {
      s.setSoTimeout((int) SENTINEL_WAIT.toMillis());
      TwoPart f = TwoPart.read(in, config.maxMessageBytes());
      if (f.kind() != TwoPart.Kind.HEADER_ONLY || ControlJson.parseControl(f.header()) != ControlJson.Control.SENTINEL) {
        counters.add(ClientCounter.MISSING_SENTINELS);
        LOG.warn("TCP request plane: query {}: expected the sentinel after complete_final, got {}", p.id, preview(f));
        sendControl(s, ControlJson.Control.KILL);
        return;
      }
      s.shutdownOutput(); // FIN: the worker waits for it (plugins-wire §1.2 step 7)
    } catch (IOException | TcpWireException e) {
      counters.add(ClientCounter.MISSING_SENTINELS);
      LOG.warn("TCP request plane: query {}: no sentinel after complete_final: {}", p.id, e.toString());
    }
  }

  private static String preview(TwoPart f) {
    byte[] h = f.header();
    return h.length == 0 ? f.toString() : new String(h, 0, Math.min(h.length, 64), StandardCharsets.UTF_8);
  }

  // ------------------------------------------------------------------ close

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeQuietly(listener);
    for (Pending p : new ArrayList<>(pending.values())) {
      p.fail(RequestPlaneException.Kind.CLOSED, ClientCounter.CLOSED, "request plane closed", null);
    }
    pools.values().forEach(Pool::closeAll);
    timers.shutdownNow();
    io.shutdownNow();
    LOG.info("TCP request plane: closed (listener {}); counters {}", advertised, counters);
  }

  private static void closeQuietly(@Nullable AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception ignored) {
      // closing anyway
    }
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
