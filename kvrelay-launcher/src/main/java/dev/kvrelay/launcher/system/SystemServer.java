package dev.kvrelay.launcher.system;

import dev.kvrelay.launcher.health.RelayHealth;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kvrelay.engine.RelayEngine;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread-safe: the relay's system HTTP server (plugins-wire §4, producer §7.5) on the JDK's HTTP server with two
 * daemon threads. Routes, all {@code GET}:
 *
 * <ul>
 *   <li>{@code DYN_SYSTEM_HEALTH_PATH} and {@code DYN_SYSTEM_LIVE_PATH} — the same handler: upstream's body
 *       {@code {"status","uptime","endpoints"}}, 200 when the relay health object says healthy, else 503;
 *   <li>{@code /metrics} — Prometheus text (the client library's exposition, content negotiation included):
 *       upstream's {@code dynamo_component_kv_dc_relay_*} series, kvrelay's {@code kvrelay_*} and the JVM's,
 *       all sampled from the engine at scrape time;
 *   <li>{@code /engine/state} — {@code {podUID, mode, connectionRevision, ready, sources}};
 *   <li>{@code /status} — a human status page (server-rendered HTML, 2 s refresh, SVG sparklines) and
 *       {@code /status.json} — the same data as JSON; the sparklines' history and the recent-errors ring are sampled
 *       once a second by a daemon thread this server owns ({@link StatusSampler}), stopped by {@link #close()};
 *   <li>anything else — 404 {@code Route not found}; another method on a known route — 405.
 * </ul>
 *
 * <p>Wiring: {@code SystemServer.startIfEnabled(SystemServerSettings.fromEnvironment(System.getenv()), engine,
 * RelayProcessInfo.discovery(System.getenv(), wanStatus))}; call {@link #beginShutdown()} when the shutdown path
 * starts (health turns 503), and {@link #close()} after the engine closed.
 */
public final class SystemServer implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SystemServer.class);

  /** The metrics route. */
  public static final String METRICS_PATH = "/metrics";
  /** The engine routes' prefix (upstream {@code ANY /engine/{*path}}). */
  public static final String ENGINE_PREFIX = "/engine/";
  /** The engine state route. */
  public static final String ENGINE_STATE_PATH = "/engine/state";
  /** The status page. */
  public static final String STATUS_PATH = "/status";
  /** The status page's data as JSON. */
  public static final String STATUS_JSON_PATH = "/status.json";

  private final SystemServerSettings settings;
  private final RelayEngine engine;
  private final RelayProcessInfo info;
  private final PrometheusRegistry registry;
  private final MetricsHandler metrics;
  private final HttpServer http;
  private final ExecutorService executor;
  private final StatusSampler sampler;
  private volatile boolean shuttingDown;
  private volatile boolean closed;

  private SystemServer(SystemServerSettings settings, RelayEngine engine, RelayProcessInfo info)
      throws IOException {
    this.settings = settings;
    this.engine = engine;
    this.info = info;
    this.registry = new PrometheusRegistry();
    registry.register(new RelayMetricsCollector(engine, info.namespace()));
    JvmMetrics.builder().register(registry);
    this.metrics = new MetricsHandler(registry);
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "kvrelay-system-http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.sampler = new StatusSampler(engine, info);
    HttpServer created;
    try {
      created = HttpServer.create(new InetSocketAddress(settings.host(), settings.port()), 64);
    } catch (IOException | RuntimeException e) {
      sampler.close();
      executor.shutdownNow();
      throw e;
    }
    this.http = created;
    http.createContext("/", this::route);
    http.setExecutor(executor);
    http.start();
  }

  /**
   * Starts the server.
   *
   * @throws IllegalArgumentException if {@code settings} disable it ({@code port = -1}); see {@link #startIfEnabled}
   * @throws IOException if the address cannot be bound (the message names it)
   */
  public static SystemServer start(SystemServerSettings settings, RelayEngine engine, RelayProcessInfo info)
      throws IOException {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(info, "info");
    if (!settings.enabled()) {
      throw new IllegalArgumentException("the system server is disabled (" + SystemServerSettings.PORT + "="
          + settings.port() + ")");
    }
    SystemServer server;
    try {
      server = new SystemServer(settings, engine, info);
    } catch (IOException e) {
      throw new IOException("system server cannot bind " + settings.host() + ":" + settings.port() + ": "
          + e.getMessage(), e);
    }
    LOG.info("system server listening on {}:{} (health {}, live {}, {}, {}, {})", settings.host(),
        server.port(), settings.healthPath(), settings.livePath(), METRICS_PATH,
        ENGINE_STATE_PATH, STATUS_PATH);
    return server;
  }

  /** {@link #start} when {@code settings.enabled()}, else empty (upstream's default: no system server). */
  public static Optional<SystemServer> startIfEnabled(SystemServerSettings settings, RelayEngine engine,
      RelayProcessInfo info) throws IOException {
    return settings.enabled() ? Optional.of(start(settings, engine, info)) : Optional.empty();
  }

  /** The bound port (the chosen one when {@code DYN_SYSTEM_PORT=0}). */
  public int port() {
    return http.getAddress().getPort();
  }

  /** The bound address. */
  public InetSocketAddress address() {
    return http.getAddress();
  }

  /** The settings it was started with. */
  public SystemServerSettings settings() {
    return settings;
  }

  /** The registry {@code /metrics} exposes (to add launcher metrics). */
  public PrometheusRegistry registry() {
    return registry;
  }

  /** Marks the relay as shutting down: health and live answer 503 from now on. Idempotent. */
  public void beginShutdown() {
    shuttingDown = true;
  }

  /** The relay health object now (producer §7.5), as health and live compute it. */
  public RelayHealth health() {
    return RelayHealth.read(engine, info.sources(), info.wan(), shuttingDown);
  }

  /** Stops listening (waits up to 1 s for exchanges in progress) and stops the threads. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    http.stop(1);
    sampler.close();
    executor.shutdownNow();
    try {
      executor.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info("system server on port {} stopped", port());
  }

  private void route(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      boolean get = "GET".equals(exchange.getRequestMethod()) || "HEAD".equals(exchange.getRequestMethod());
      boolean health = path.equals(settings.healthPath()) || path.equals(settings.livePath());
      boolean status = path.equals(STATUS_PATH) || path.equals(STATUS_JSON_PATH);
      boolean known = health || status || path.equals(METRICS_PATH) || path.equals(ENGINE_STATE_PATH);
      if (!known) {
        text(exchange, 404, "Route not found");
        return;
      }
      if (!get) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        text(exchange, 405, "Method not allowed");
        return;
      }
      if (health) {
        RelayHealth h = health();
        json(exchange, h.healthy() ? 200 : 503, SystemJson.health(h, uptime()));
      } else if (status) {
        StatusReport report = StatusReport.read(engine, health(), info.mode(), sampler, uptime());
        if (path.equals(STATUS_PATH)) {
          send(exchange, 200, "text/html; charset=utf-8", StatusHtml.render(report));
        } else {
          json(exchange, 200, StatusJson.write(report));
        }
      } else if (path.equals(METRICS_PATH)) {
        metrics.handle(exchange);
      } else {
        RelayHealth h = health();
        json(exchange, 200, SystemJson.engineState(info, h));
      }
    } catch (RuntimeException e) {
      LOG.warn("system server request {} failed", exchange.getRequestURI(), e);
      try {
        json(exchange, 500, SystemJson.error(String.valueOf(e.getMessage())));
      } catch (IOException | RuntimeException ignored) {
        // headers already sent: the client sees a truncated body
      }
    }
  }

  /** Since the JVM started (upstream: since the runtime started). */
  private static Duration uptime() {
    return Duration.ofMillis(ManagementFactory.getRuntimeMXBean().getUptime());
  }

  private static void text(HttpExchange exchange, int status, String body) throws IOException {
    send(exchange, status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
  }

  private static void json(HttpExchange exchange, int status, byte[] body) throws IOException {
    send(exchange, status, "application/json", body);
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }
}
