package dev.kvrelay.launcher.cli;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the Dynamo runtime environment of the stock relay ({@code runtime-inputs.md} §9,
 * {@code plugins-wire.md} §5–§6) — which plugin serves discovery, the event plane and the request plane, and the
 * settings each of them is opened with.
 *
 * <p>Each plugin receives only the variables of its own family (so, e.g., {@code ETCD_AUTH_PASSWORD} never reaches
 * the NATS plugin and {@code NATS_AUTH_TOKEN} never reaches etcd):
 *
 * <ul>
 *   <li>discovery: {@code DYN_DISCOVERY_BACKEND}, {@code DYN_KUBE_DISCOVERY_MODE}, {@code DYN_FILE_KV},
 *       {@code TMPDIR} (the file store's default root), {@code CONTAINER_NAME}, {@code DYN_NAMESPACE} and every
 *       {@code ETCD_*} and {@code POD_*} variable;
 *   <li>event plane: {@code DYN_EVENT_PLANE}, {@code DYN_EVENT_PLANE_HOST}, {@code DYN_EVENT_PLANE_CODEC},
 *       {@code DYN_NAMESPACE} and every {@code NATS_*} and {@code DYN_ZMQ_*} variable;
 *   <li>request plane: {@code DYN_REQUEST_PLANE}, {@code DYN_REQUEST_PLANE_CODEC}, {@code DYN_NAMESPACE} and every
 *       {@code DYN_TCP_*} variable.
 * </ul>
 *
 * <p>Selection: {@code DYN_DISCOVERY_BACKEND} (default {@code etcd}), {@code DYN_EVENT_PLANE} (default {@code zmq}
 * for every backend, the newest upstream rule, plugins-wire §6), {@code DYN_REQUEST_PLANE} (default {@code tcp});
 * values are trimmed and lowercased, blank counts as unset. Decision (plugins-wire §6: upstream "warns and falls back
 * to ZMQ on an invalid value"): an event-plane name that is not a known plane falls back to {@code zmq} with
 * {@link #eventPlaneFallback()} set so the launcher logs a warning; an unknown discovery backend or request plane
 * is a start error (the registry's message lists the known names).
 *
 * @param namespace {@code DYN_NAMESPACE}, default {@code dynamo}: the namespace of the relay's own runtime
 *     endpoints (it does not select watched namespaces, producer.md §7.5)
 * @param discoveryBackend the discovery provider name
 * @param eventPlane the event-plane provider name
 * @param eventPlaneFallback the unknown {@code DYN_EVENT_PLANE} value replaced by {@code zmq}, or null
 * @param requestPlane the request-plane provider name
 * @param discoverySettings what the discovery provider is opened with
 * @param eventPlaneSettings what the event-plane provider is opened with
 * @param requestPlaneSettings what the request-plane provider is opened with
 */
public record RuntimeEnvironment(String namespace, String discoveryBackend, String eventPlane,
    @Nullable String eventPlaneFallback, String requestPlane, Map<String, String> discoverySettings,
    Map<String, String> eventPlaneSettings, Map<String, String> requestPlaneSettings) {

  /** {@code DYN_NAMESPACE}. */
  public static final String NAMESPACE = "DYN_NAMESPACE";
  /** {@code DYN_DISCOVERY_BACKEND}. */
  public static final String DISCOVERY_BACKEND = "DYN_DISCOVERY_BACKEND";
  /** {@code DYN_EVENT_PLANE}. */
  public static final String EVENT_PLANE = "DYN_EVENT_PLANE";
  /** {@code DYN_REQUEST_PLANE}. */
  public static final String REQUEST_PLANE = "DYN_REQUEST_PLANE";
  /** The default of {@code DYN_NAMESPACE}. */
  public static final String DEFAULT_NAMESPACE = "dynamo";
  /** The default discovery backend ({@code runtime-inputs.md} §9). */
  public static final String DEFAULT_DISCOVERY = "etcd";
  /** The default event plane (plugins-wire §6, newest upstream). */
  public static final String DEFAULT_EVENT_PLANE = "zmq";
  /** The default request plane ({@code runtime-inputs.md} §9). */
  public static final String DEFAULT_REQUEST_PLANE = "tcp";
  /** The event planes a {@code DYN_EVENT_PLANE} value may name without falling back. */
  public static final List<String> KNOWN_EVENT_PLANES = List.of("zmq", "nats", "mem");

  static final List<String> DISCOVERY_NAMES = List.of(DISCOVERY_BACKEND, "DYN_KUBE_DISCOVERY_MODE", "DYN_FILE_KV",
      "TMPDIR", "CONTAINER_NAME", NAMESPACE);
  static final List<String> DISCOVERY_PREFIXES = List.of("ETCD_", "POD_");
  static final List<String> EVENT_PLANE_NAMES = List.of(EVENT_PLANE, "DYN_EVENT_PLANE_HOST", "DYN_EVENT_PLANE_CODEC",
      NAMESPACE);
  static final List<String> EVENT_PLANE_PREFIXES = List.of("NATS_", "DYN_ZMQ_");
  static final List<String> REQUEST_PLANE_NAMES = List.of(REQUEST_PLANE, "DYN_REQUEST_PLANE_CODEC", NAMESPACE);
  static final List<String> REQUEST_PLANE_PREFIXES = List.of("DYN_TCP_");

  /** Copies the maps (sorted, unmodifiable) and checks the names. */
  public RuntimeEnvironment {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(discoveryBackend, "discoveryBackend");
    Objects.requireNonNull(eventPlane, "eventPlane");
    Objects.requireNonNull(requestPlane, "requestPlane");
    discoverySettings = Collections.unmodifiableMap(new TreeMap<>(discoverySettings));
    eventPlaneSettings = Collections.unmodifiableMap(new TreeMap<>(eventPlaneSettings));
    requestPlaneSettings = Collections.unmodifiableMap(new TreeMap<>(requestPlaneSettings));
  }

  /** Reads {@code env} (e.g. {@code System.getenv()}); never fails: bad values are the plugins' to report. */
  public static RuntimeEnvironment from(Map<String, String> env) {
    String namespace = valueOr(env, NAMESPACE, DEFAULT_NAMESPACE, false);
    String discovery = valueOr(env, DISCOVERY_BACKEND, DEFAULT_DISCOVERY, true);
    String requested = valueOr(env, EVENT_PLANE, DEFAULT_EVENT_PLANE, true);
    String eventPlane = KNOWN_EVENT_PLANES.contains(requested) ? requested : DEFAULT_EVENT_PLANE;
    String fallback = eventPlane.equals(requested) ? null : env.get(EVENT_PLANE);
    String requestPlane = valueOr(env, REQUEST_PLANE, DEFAULT_REQUEST_PLANE, true);
    return new RuntimeEnvironment(namespace, discovery, eventPlane, fallback, requestPlane,
        select(env, DISCOVERY_NAMES, DISCOVERY_PREFIXES), select(env, EVENT_PLANE_NAMES, EVENT_PLANE_PREFIXES),
        select(env, REQUEST_PLANE_NAMES, REQUEST_PLANE_PREFIXES));
  }

  private static String valueOr(Map<String, String> env, String name, String dflt, boolean lower) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    return lower ? v.trim().toLowerCase(Locale.ROOT) : v.trim();
  }

  private static Map<String, String> select(Map<String, String> env, List<String> names, List<String> prefixes) {
    TreeMap<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : env.entrySet()) {
      String k = e.getKey();
      if (names.contains(k) || prefixes.stream().anyMatch(k::startsWith)) {
        out.put(k, e.getValue());
      }
    }
    return out;
  }

  /** Names and selections only, never setting values (they may be secrets). */
  @Override
  public String toString() {
    return "RuntimeEnvironment[namespace=" + namespace + ", discovery=" + discoveryBackend + " "
        + discoverySettings.keySet() + ", eventPlane=" + eventPlane + " " + eventPlaneSettings.keySet()
        + ", requestPlane=" + requestPlane + " " + requestPlaneSettings.keySet() + "]";
  }
}
