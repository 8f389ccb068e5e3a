package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.launcher.health.RelayHealth;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.launcher.health.SourcesStatus;
import dev.kvrelay.launcher.health.HealthSource;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.requestplane.tcp.TcpEndpointPaths;
import dev.kvrelay.requestplane.tcp.TcpRequestServer;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (handlers run concurrently on the request server's pool; counters are adders; start and close are
 * one-shot): the relay's diagnostic runtime endpoints (producer.md §7.5) — {@code health}, {@code stats} and
 * {@code snapshot} of component {@code <namespace>.kv_dc_relay_<sha256(dc_id)[:32]>} — served on a
 * {@link TcpRequestServer} under the newest instance paths (plugins-wire §3) and advertised as endpoint instances
 * ({@code {"tcp":"ip:port/<iid hex>/<ns>/<comp>/<ep>"}}, {@code request_plane_codec} {@code json}) through an
 * {@link DiscoveryRegistrar}.
 *
 * <p>Requests and answers (JSON, one response item each, plugins-wire §1.4):
 * <ul>
 *   <li>{@code health}: any body (the runtime's health check sends {@code {"text":"health"}}) →
 *       {@link HealthDocument};
 *   <li>{@code stats}: any body → the stats object ({@link StatsDocument});
 *   <li>{@code snapshot}: {@code {"serving_endpoint":"ns.comp.ep"}} (or {@code "ns/comp/ep"}) → one pool's raw
 *       buckets ({@link PoolSnapshots}).
 * </ul>
 * A refused request ({@link DiagnosticRequestException}) ends with the error prologue
 * {@code {"error":"<message>"}}; an unknown path is ACKed {@code Server unavailable: unknown endpoint <path>} and a
 * body that is not JSON {@code Decode error: …} by the server. Nothing a request does changes the relay. Every
 * answer and every refusal is counted ({@link #stats()}) and each refusal logged once.
 */
public final class DiagnosticEndpoints implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DiagnosticEndpoints.class);
  /** How long a snapshot read waits for the pool stream's snapshot. */
  public static final Duration SNAPSHOT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Immutable and thread-safe: the endpoints' counters.
   *
   * @param answered answers sent, per endpoint name
   * @param refused refusals, per kind
   */
  public record Stats(Map<String, Long> answered, Map<DiagnosticRequestException.Kind, Long> refused) {
    /** Copies the maps. */
    public Stats {
      answered = Map.copyOf(answered);
      refused = Map.copyOf(refused);
    }
  }

  private final DiagnosticComponent component;
  private final TcpRequestServer server;
  private final DiscoveryRegistrar registrar;
  private final List<EndpointRecord> records;
  private final List<String> paths;
  private final Map<String, LongAdder> answered = new LinkedHashMap<>();
  private final Map<DiagnosticRequestException.Kind, LongAdder> refused =
      new EnumMap<>(DiagnosticRequestException.Kind.class);
  private final AtomicBoolean closed = new AtomicBoolean();

  private DiagnosticEndpoints(DiagnosticComponent component, TcpRequestServer server, DiscoveryRegistrar registrar,
      List<EndpointRecord> records, List<String> paths) {
    this.component = component;
    this.server = server;
    this.registrar = registrar;
    this.records = List.copyOf(records);
    this.paths = List.copyOf(paths);
    for (String name : DiagnosticComponent.ENDPOINTS) {
      answered.put(name, new LongAdder());
    }
    for (DiagnosticRequestException.Kind k : DiagnosticRequestException.Kind.values()) {
      refused.put(k, new LongAdder());
    }
  }

  /**
   * Serves and advertises the three endpoints with the health object computed from {@code engine}
   * ({@link HealthSource#ofEngine}: discovery-mode sources of the engine's scope, no WAN).
   *
   * @see #start(RelayEngine, TcpRequestServer, DiscoveryRegistrar, String, HealthSource)
   */
  public static DiagnosticEndpoints start(RelayEngine engine, TcpRequestServer server, DiscoveryRegistrar registrar,
      String namespace) throws DiscoveryException {
    int namespaces = engine.config().scope().namespaces().size();
    return start(engine, server, registrar, namespace,
        HealthSource.ofEngine(engine, () -> SourcesStatus.discovery(namespaces), WanStatus::disabled));
  }

  /**
   * Serves the three endpoints of {@code engine}'s DC (its {@code dc_id} is {@code engine.config().dcName()}) on
   * {@code server} and advertises them through {@code registrar}. If the registration fails, nothing stays served.
   *
   * @param namespace {@code DYN_NAMESPACE} (default {@value DiagnosticComponent#DEFAULT_NAMESPACE})
   * @param health where the {@code health} endpoint reads the health object
   * @return the running endpoints; {@link #close()} withdraws and stops them
   * @throws DiscoveryException if the registrar refuses the records
   */
  public static DiagnosticEndpoints start(RelayEngine engine, TcpRequestServer server, DiscoveryRegistrar registrar,
      String namespace, HealthSource health) throws DiscoveryException {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(registrar, "registrar");
    Objects.requireNonNull(health, "health");
    DiagnosticComponent component = new DiagnosticComponent(namespace, engine.config().dcName());
    // The answer item travels in one data frame: leave room for the {"data":…,"complete_final":false} wrapper.
    PoolSnapshots snapshots = new PoolSnapshots(engine, SNAPSHOT_TIMEOUT, server.settings().maxMessageBytes() - 64);
    long iid = registrar.instanceId();
    List<EndpointRecord> records = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    for (String name : DiagnosticComponent.ENDPOINTS) {
      DynamoEndpointId ep = component.endpoint(name);
      String path = TcpEndpointPaths.instancePath(ep, iid);
      paths.add(path);
      records.add(new EndpointRecord(new EndpointKey(ep, iid), new Transport.Tcp(server.hostPort() + "/" + path),
          "json", null));
    }
    DiagnosticEndpoints d = new DiagnosticEndpoints(component, server, registrar, records, paths);
    for (int i = 0; i < paths.size(); i++) {
      String name = DiagnosticComponent.ENDPOINTS.get(i);
      Answer answer = switch (name) {
        case DiagnosticComponent.HEALTH -> request -> HealthDocument.of(health.health());
        case DiagnosticComponent.STATS -> request -> StatsDocument.of(component.dcId(), engine.stats());
        case DiagnosticComponent.SNAPSHOT -> snapshots::read;
        default -> throw new IllegalStateException("no answer for the diagnostic endpoint " + name);
      };
      server.register(paths.get(i), request -> d.answer(name, answer, request));
    }
    try {
      for (EndpointRecord r : records) {
        registrar.register(r);
      }
    } catch (DiscoveryException | RuntimeException e) {
      paths.forEach(server::unregister);
      throw e;
    }
    LOG.info("diagnostic endpoints {}.{}.{{}} served at {} as instance {}", component.namespace(),
        component.component(), String.join(",", DiagnosticComponent.ENDPOINTS), server.hostPort(),
        Long.toHexString(iid));
    return d;
  }

  /** Thread-safe: one endpoint's answer to a request body. */
  @FunctionalInterface
  private interface Answer {
    JsonValue answer(JsonValue request) throws DiagnosticRequestException, InterruptedException;
  }

  private List<JsonValue> answer(String name, Answer a, JsonValue request) throws DiagnosticRequestException,
      InterruptedException {
    try {
      JsonValue v = a.answer(request);
      counter(answered, name).increment();
      return List.of(v);
    } catch (DiagnosticRequestException e) {
      counter(refused, e.kind()).increment();
      LOG.warn("diagnostic endpoint {} refused a request ({}): {}", name, e.kind(), e.getMessage());
      throw e;
    }
  }

  /** The counter of {@code key}: the constructor made one for every endpoint name and every refusal kind. */
  private static <K> LongAdder counter(Map<K, LongAdder> counters, K key) {
    LongAdder c = counters.get(key);
    if (c == null) {
      throw new IllegalStateException("no counter for " + key);
    }
    return c;
  }

  /** The component the endpoints live in. */
  public DiagnosticComponent component() {
    return component;
  }

  /** The endpoint instances advertised, in the order health, stats, snapshot. */
  public List<EndpointRecord> records() {
    return records;
  }

  /** The counters now. */
  public Stats stats() {
    Map<String, Long> a = new LinkedHashMap<>();
    answered.forEach((k, v) -> a.put(k, v.sum()));
    Map<DiagnosticRequestException.Kind, Long> r = new EnumMap<>(DiagnosticRequestException.Kind.class);
    refused.forEach((k, v) -> r.put(k, v.sum()));
    return new Stats(a, r);
  }

  /**
   * Withdraws the records from discovery (a failure is logged: the backend's lease or TTL removes them) and stops
   * serving the paths (later requests are ACKed {@code Server unavailable: unknown endpoint}). Idempotent. The
   * server itself stays open: it belongs to the caller.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<EndpointKey> keys = records.stream().map(EndpointRecord::key).toList();
    try {
      for (EndpointKey k : keys) {
        registrar.deregister(k);
      }
    } catch (DiscoveryException | RuntimeException e) {
      LOG.warn("diagnostic endpoints: withdrawing {} from discovery failed: {}", keys, e.toString());
    }
    paths.forEach(server::unregister);
    LOG.info("diagnostic endpoints {}.{} withdrawn; counters {}", component.namespace(), component.component(),
        stats());
  }
}
