package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.json.JsonValue;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: a TCP request-plane server for the relay's own runtime endpoints ({@code health},
 * {@code stats}, {@code snapshot}; producer.md §7.5), speaking the worker side of plugins-wire §1: it reads
 * {@link RequestFrame}s, ACKs each (FIFO per connection; {@code Server unavailable: unknown endpoint <path>},
 * {@code Server overloaded: worker at capacity}, {@code Decode error: …}), dials the caller's response
 * listener, and streams handshake → prologue → one data item per response → {@code complete_final} →
 * {@code "sentinel"}, then waits up to 10 s for the caller's FIN. Payloads are JSON only: it advertises and
 * accepts {@code payload_codec} {@code json}.
 *
 * <p>Threads (platform, daemon): one accept thread, one reader per request connection, handlers on a bounded
 * pool ({@link Settings#workers}, queue {@link Settings#queue}).
 */
public final class TcpRequestServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpRequestServer.class);
  private static final Duration FIN_WAIT = Duration.ofSeconds(10);

  /**
   * Thread-safe (called concurrently from the server's pool): one endpoint's logic.
   */
  public interface Handler {
    /**
     * Called on the connection's reader thread before the ACK: empty accepts, a text refuses with that ACK
     * (e.g. {@code Server overloaded: …}). The default accepts everything.
     */
    default Optional<String> admit(JsonValue request) {
      return Optional.empty();
    }

    /**
     * Answers one request on a pool thread after the ACK: the response items, in order (one for the
     * relay's endpoints). A thrown exception becomes an error prologue with its message.
     */
    List<JsonValue> handle(JsonValue request) throws Exception;
  }

  /**
   * Immutable and thread-safe: server settings.
   *
   * @param host the IP to bind (and advertise)
   * @param port 0 = ephemeral
   * @param maxMessageBytes frame limit ({@code DYN_TCP_MAX_MESSAGE_SIZE})
   * @param connectTimeout the dial-back connect timeout
   * @param workers handler threads
   * @param queue requests queued beyond busy workers before {@code Server overloaded:}
   */
  public record Settings(InetAddress host, int port, int maxMessageBytes, Duration connectTimeout, int workers,
      int queue) {
    /** Checks ranges. */
    public Settings {
      Objects.requireNonNull(host, "host");
      if (port < 0 || port > 65535 || maxMessageBytes < 1024 || workers < 1 || queue < 1) {
        throw new IllegalArgumentException("server settings out of range");
      }
    }

    /** From a request-plane config: its host, 32 MiB default limit, connect timeout; 4 workers, queue 64. */
    public static Settings of(TcpRequestPlaneConfig c, int port) {
      return new Settings(c.responseHost(), port, c.maxMessageBytes(), c.connectTimeout(), 4, 64);
    }
  }

  private final Settings settings;
  private final ServerSocket listener;
  private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
  private final Counters<ServerCounter> counters = new Counters<>(ServerCounter.class);
  private final ThreadPoolExecutor workers;
  private final ExecutorService readers;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private TcpRequestServer(Settings settings, ServerSocket listener) {
    this.settings = settings;
    this.listener = listener;
    this.workers = new ThreadPoolExecutor(settings.workers(), settings.workers(), 0, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(settings.queue()), TcpRequestPlaneClient.daemon("kvrelay-tcp-server-worker"),
        new ThreadPoolExecutor.AbortPolicy());
    this.readers = Executors.newCachedThreadPool(TcpRequestPlaneClient.daemon("kvrelay-tcp-server-conn"));
  }

  /**
   * Binds and starts accepting.
   *
   * @throws IOException if the port cannot be bound
   */
  public static TcpRequestServer start(Settings settings) throws IOException {
    ServerSocket ss = new ServerSocket();
    ss.setReuseAddress(true);
    ss.bind(new InetSocketAddress(settings.host(), settings.port()), 256);
    TcpRequestServer s = new TcpRequestServer(settings, ss);
    Thread t = TcpRequestPlaneClient.daemon("kvrelay-tcp-server-accept").newThread(s::acceptLoop);
    t.start();
    LOG.info("TCP request server listening on {}", s.hostPort());
    return s;
  }

  /** {@code ip:port} of the listener, IPv6 bracketed. */
  public String hostPort() {
    return TcpEndpointPaths.Address.hostPort(settings.host().getHostAddress(), listener.getLocalPort());
  }

  /** The settings it runs with (e.g. {@link Settings#maxMessageBytes()}, the largest frame a caller accepts). */
  public Settings settings() {
    return settings;
  }

  /** The bound port. */
  public int port() {
    return listener.getLocalPort();
  }

  /** The counters. */
  public Counters<ServerCounter> counters() {
    return counters;
  }

  /** Serves {@code path} (the part after the first {@code /} of a transport string) with {@code handler}. */
  public void register(String path, Handler handler) {
    handlers.put(Objects.requireNonNull(path, "path"), Objects.requireNonNull(handler, "handler"));
  }

  /**
   * Serves {@code endpoint} of instance {@code instanceId} under the newest instance path (plugins-wire §3) and
   * returns the transport string to advertise in discovery: {@code ip:port/{iid:x}/{ns}/{comp}/{ep}}.
   */
  public String register(DynamoEndpointId endpoint, long instanceId, Handler handler) {
    String path = TcpEndpointPaths.instancePath(endpoint, instanceId);
    register(path, handler);
    return hostPort() + "/" + path;
  }

  /** Stops serving {@code path}: later requests get {@code Server unavailable: unknown endpoint}. */
  public void unregister(String path) {
    handlers.remove(path);
  }

  // ------------------------------------------------------------------ request connections

  private void acceptLoop() {
    while (!closed) {
      Socket s;
      try {
        s = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.error("TCP request server {} accept failed: {}", hostPort(), e.toString());
        }
        return;
      }
      counters.add(ServerCounter.CONNECTIONS);
      sockets.add(s);
      try {
        readers.execute(() -> serveConnection(s));
      } catch (RejectedExecutionException e) {
        close(s);
      }
    }
  }

  private void serveConnection(Socket s) {
    try {
      s.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (!closed) {
        RequestFrame f;
        try {
          f = RequestFrame.read(in, settings.maxMessageBytes());
        } catch (EOFException e) {
          return;
        } catch (TcpWireException e) {
          counters.add(ServerCounter.BAD_FRAMES);
          LOG.warn("TCP request server: closing connection from {}: {}", s.getRemoteSocketAddress(), e.getMessage());
          return;
        }
        counters.add(ServerCounter.REQUESTS);
        out.write(AckFrame.encode(dispatch(f)));
        out.flush();
      }
    } catch (IOException e) {
      if (!closed) {
        LOG.debug("TCP request server: connection from {} ended: {}", s.getRemoteSocketAddress(), e.toString());
      }
    } finally {
      close(s);
    }
  }

  /** Decodes, admits and queues one request; returns its ACK text. */
  private String dispatch(RequestFrame f) {
    Handler h = handlers.get(f.endpointPath());
    if (h == null) {
      counters.add(ServerCounter.UNKNOWN_ENDPOINTS);
      LOG.warn("TCP request server: unknown endpoint {}", f.endpointPath());
      return AckFrame.UNAVAILABLE_PREFIX + " unknown endpoint " + f.endpointPath();
    }
    ControlJson.ControlMessage cm;
    @Nullable JsonValue body;
    try {
      TwoPart envelope = TwoPart.decode(f.payload(), settings.maxMessageBytes());
      cm = ControlJson.parseControlMessage(envelope.header());
      if (!cm.payloadCodec().equals("json")) {
        throw new TcpWireException(TcpWireException.Reason.MALFORMED,
            "payload codec '" + cm.payloadCodec() + "' is not supported (this endpoint speaks json)");
      }
      byte[] b = envelope.body();
      body = b.length == 0 ? null : ControlJson.parse(b, settings.maxMessageBytes());
    } catch (TcpWireException e) {
      counters.add(ServerCounter.DECODE_ERRORS);
      LOG.warn("TCP request server: undecodable request for {}: {}", f.endpointPath(), e.getMessage());
      return "Decode error: " + e.getMessage();
    }
    if (body != null) {
      Optional<String> refusal = h.admit(body);
      if (refusal.isPresent() && !refusal.get().isEmpty()) {
        counters.add(ServerCounter.REFUSED_BY_HANDLER);
        return refusal.get();
      }
    }
    try {
      workers.execute(() -> respond(f.endpointPath(), cm, body, h));
    } catch (RejectedExecutionException e) {
      counters.add(ServerCounter.OVERLOADED);
      LOG.warn("TCP request server: overloaded, refusing a request for {}", f.endpointPath());
      return AckFrame.OVERLOADED_TEXT;
    }
    counters.add(ServerCounter.ACCEPTED);
    return "";
  }

  // ------------------------------------------------------------------ response streams

  private void respond(String path, ControlJson.ControlMessage cm, @Nullable JsonValue body, Handler h) {
    if (!cm.transport().equals(ControlJson.TRANSPORT_TCP_SERVER)) {
      counters.add(ServerCounter.UNSUPPORTED_TRANSPORTS);
      LOG.warn("TCP request server: request {} for {} asks for response transport '{}'; only tcp_server is served",
          cm.id(), path, cm.transport());
      return;
    }
    ControlJson.StreamConnectionInfo info;
    TcpEndpointPaths.Address caller;
    try {
      info = ControlJson.parseConnectionInfo(cm.info());
      caller = TcpEndpointPaths.parse(info.address() + "/");
    } catch (TcpWireException | IllegalArgumentException e) {
      counters.add(ServerCounter.UNSUPPORTED_TRANSPORTS);
      LOG.warn("TCP request server: request {} for {} has an unusable connection info: {}", cm.id(), path, e.getMessage());
      return;
    }
    Socket s = new Socket();
    sockets.add(s);
    try {
      try {
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(caller.host(), caller.port()), (int) settings.connectTimeout().toMillis());
      } catch (IOException e) {
        counters.add(ServerCounter.DIAL_FAILURES);
        LOG.warn("TCP request server: cannot dial back {} for request {}: {}", info.address(), cm.id(), e.toString());
        return;
      }
      OutputStream out = s.getOutputStream();
      write(out, TwoPart.headerOnly(ControlJson.handshake(info.subject())));
      String error = null;
      List<JsonValue> items = List.of();
      if (!info.context().equals(cm.id())) {
        error = "Invalid context: connection info context " + info.context() + " is not the request id " + cm.id();
      } else if (!info.streamType().equals(ControlJson.STREAM_TYPE_RESPONSE)) {
        error = "Invalid stream type: " + info.streamType();
      } else if (body == null) {
        error = "unary engine received a header-only envelope";
      } else {
        try {
          items = h.handle(body);
        } catch (Exception e) {
          error = e.getMessage() == null ? e.toString() : e.getMessage();
        }
      }
      write(out, TwoPart.headerOnly(ControlJson.prologue(error)));
      if (error != null) {
        counters.add(ServerCounter.ERROR_PROLOGUES);
        LOG.warn("TCP request server: request {} for {} failed: {}", cm.id(), path, error);
        return;
      }
      for (JsonValue item : items) {
        write(out, TwoPart.dataOnly(ControlJson.item(item)));
      }
      write(out, TwoPart.dataOnly(ControlJson.finalItem()));
      write(out, TwoPart.headerOnly(ControlJson.Control.SENTINEL.json()));
      counters.add(ServerCounter.STREAMS_COMPLETED);
      awaitFin(s, cm.id());
    } catch (IOException e) {
      counters.add(ServerCounter.STREAMS_BROKEN);
      LOG.warn("TCP request server: response stream for request {} broke: {}", cm.id(), e.toString());
    } finally {
      close(s);
    }
  }

  private static void write(OutputStream out, TwoPart frame) throws IOException {
    out.write(frame.encode());
    out.flush();
  }

  private void awaitFin(Socket s, String id) throws IOException {
    s.setSoTimeout((int) FIN_WAIT.toMillis());
    InputStream in = new BufferedInputStream(s.getInputStream());
    try {
      while (true) {
        TwoPart f = TwoPart.read(in, settings.maxMessageBytes());
        ControlJson.Control c = ControlJson.parseControl(f.header());
        if (c == ControlJson.Control.STOP || c == ControlJson.Control.KILL) {
          counters.add(ServerCounter.CANCELLED_BY_CALLER);
          LOG.info("TCP request server: caller sent {} for request {}", c, id);
        }
      }
    } catch (EOFException e) {
      // the caller's FIN
    } catch (SocketTimeoutException e) {
      counters.add(ServerCounter.FIN_TIMEOUTS);
      LOG.info("TCP request server: caller did not close the stream of request {} within {}", id, FIN_WAIT);
    } catch (TcpWireException e) {
      LOG.warn("TCP request server: caller sent a bad frame on the stream of request {}: {}", id, e.getMessage());
    }
  }

  private void close(Socket s) {
    sockets.remove(s);
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /** Stops accepting, closes every connection and stream, stops the handlers. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    for (Socket s : sockets) {
      close(s);
    }
    workers.shutdownNow();
    readers.shutdownNow();
    LOG.info("TCP request server {} closed; counters {}", hostPort(), counters);
  }
}
