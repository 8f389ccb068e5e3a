package dev.kvrelay.requestplane.tcp;

import static dev.kvrelay.requestplane.tcp.ClientContext.LOG;

import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.WorkerKvQueryCodec;
import dev.kvrelay.spi.eventplane.WorkerKvQueryDecodeException;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import javax.net.ssl.SSLServerSocket;

/**
 * Thread-safe (one accept thread; each call-home socket confined to its reader on the I/O pool): the response
 * listener of a {@link TcpRequestPlaneClient} (plugins-wire §1.2). It binds the advertised IP (TLS / mTLS when
 * configured), reads each worker's call-home — handshake, prologue, data-only items, {@code complete_final},
 * {@code "sentinel"} — and completes the {@link PendingQuery} its subject names.
 */
final class CallHomeListener {
  private static final Duration SENTINEL_WAIT = Duration.ofSeconds(10);

  private final ClientContext ctx;
  private final ServerSocket listener;
  private final String advertised;
  private final Map<String, PendingQuery> pending;
  private final Semaphore callHomePermits = new Semaphore(TcpRequestPlaneClient.MAX_CALL_HOMES);
  private final Thread acceptor;

  CallHomeListener(ClientContext ctx, ServerSocket listener, Map<String, PendingQuery> pending) {
    this.ctx = ctx;
    this.listener = listener;
    this.pending = pending;
    this.advertised = TcpEndpointPaths.Address.hostPort(ctx.config.responseHost().getHostAddress(),
        listener.getLocalPort());
    this.acceptor = TcpRequestPlaneClient.daemon("kvrelay-tcp-rp-accept")
        .newThread(ctx.guarded("response listener " + advertised, this::acceptLoop));
  }

  /**
   * Binds the listener socket of {@code config}: plain, or TLS from its PEM files (mTLS with a client CA).
   *
   * @throws RequestPlaneException UNREACHABLE if it cannot bind
   * @throws IllegalArgumentException if the TLS material is unusable
   */
  static ServerSocket bind(TcpRequestPlaneConfig config) throws RequestPlaneException {
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
    return ss;
  }

  /** The advertised {@code ip:port}. */
  String advertised() {
    return advertised;
  }

  void start() {
    acceptor.start();
  }

  /** Stops accepting (the accept thread ends). */
  void close() {
    ClientContext.closeQuietly(listener);
  }

  private void acceptLoop() {
    while (!ctx.closed()) {
      Socket s;
      try {
        s = listener.accept();
      } catch (IOException e) {
        if (!ctx.closed()) {
          ctx.counters.add(ClientCounter.LISTENER_FAILURES);
          LOG.error("TCP request plane: response listener {} failed: {}", advertised, e.toString());
        }
        return;
      }
      if (!callHomePermits.tryAcquire()) {
        ctx.counters.add(ClientCounter.CALL_HOMES_REFUSED);
        LOG.warn("TCP request plane: refused a call-home from {}: {} sockets open", s.getRemoteSocketAddress(),
            TcpRequestPlaneClient.MAX_CALL_HOMES);
        ClientContext.closeQuietly(s);
        continue;
      }
      try {
        ctx.io.execute(ctx.guarded("call-home reader", () -> {
          try {
            callHome(s);
          } finally {
            callHomePermits.release();
          }
        }));
      } catch (RejectedExecutionException e) {
        callHomePermits.release();
        ClientContext.closeQuietly(s);
      }
    }
  }

  private void callHome(Socket s) {
    ctx.counters.add(ClientCounter.CALL_HOMES);
    PendingQuery p = null;
    try {
      s.setTcpNoDelay(true);
      s.setSoLinger(true, 0);
      s.setSoTimeout((int) ctx.config.handshakeTimeout().toMillis());
      InputStream in = new BufferedInputStream(s.getInputStream());
      String subject;
      try {
        TwoPart hs = TwoPart.read(in, ctx.config.maxMessageBytes());
        if (hs.kind() != TwoPart.Kind.HEADER_ONLY) {
          throw new TcpWireException(TcpWireException.Reason.MALFORMED, "handshake frame is " + hs.kind());
        }
        subject = ControlJson.parseHandshake(hs.header());
      } catch (SocketTimeoutException e) {
        ctx.counters.add(ClientCounter.BAD_HANDSHAKES);
        LOG.warn("TCP request plane: timed out waiting for CallHomeHandshake from {}", s.getRemoteSocketAddress());
        return;
      } catch (TcpWireException | IOException e) {
        // includes a failed TLS handshake (e.g. no client certificate under mTLS)
        ctx.counters.add(ClientCounter.BAD_HANDSHAKES);
        LOG.warn("TCP request plane: bad call-home handshake from {}: {}", s.getRemoteSocketAddress(), e.toString());
        return;
      }
      p = pending.get(subject);
      if (p == null) {
        ctx.counters.add(ClientCounter.UNKNOWN_SUBJECTS);
        LOG.warn("TCP request plane: call-home for unknown subject {} from {}", subject, s.getRemoteSocketAddress());
        return;
      }
      if (!p.attach(s)) {
        ctx.counters.add(ClientCounter.DUPLICATE_CALL_HOMES);
        LOG.warn("TCP request plane: extra call-home for subject {} (query over or already attached)", subject);
        return;
      }
      ctx.counters.add(ClientCounter.STREAMS_ATTACHED);
      s.setSoTimeout(0); // the prologue has no timeout (plugins-wire §1.2 step 5); the query timer bounds it
      readStream(p, s, in);
    } catch (IOException e) {
      if (p != null) {
        p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.STREAMS_CUT,
            "Stream ended before generation completed: " + e, e);
      }
    } finally {
      ClientContext.closeQuietly(s);
    }
  }

  private void readStream(PendingQuery p, Socket s, InputStream in) throws IOException {
    long max = ctx.config.maxMessageBytes();
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
            ctx.counters.add(ClientCounter.EXTRA_ITEMS);
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

  private void expectSentinel(PendingQuery p, Socket s, InputStream in) {
    try {
      s.setSoTimeout((int) SENTINEL_WAIT.toMillis());
      TwoPart f = TwoPart.read(in, ctx.config.maxMessageBytes());
      if (f.kind() != TwoPart.Kind.HEADER_ONLY || ControlJson.parseControl(f.header()) != ControlJson.Control.SENTINEL) {
        ctx.counters.add(ClientCounter.MISSING_SENTINELS);
        LOG.warn("TCP request plane: query {}: expected the sentinel after complete_final, got {}", p.id, preview(f));
        ctx.sendControl(s, ControlJson.Control.KILL);
        return;
      }
      s.shutdownOutput(); // FIN: the worker waits for it (plugins-wire §1.2 step 7)
    } catch (IOException | TcpWireException e) {
      ctx.counters.add(ClientCounter.MISSING_SENTINELS);
      LOG.warn("TCP request plane: query {}: no sentinel after complete_final: {}", p.id, e.toString());
    }
  }

  private static String preview(TwoPart f) {
    byte[] h = f.header();
    return h.length == 0 ? f.toString() : new String(h, 0, Math.min(h.length, 64), StandardCharsets.UTF_8);
  }
}
