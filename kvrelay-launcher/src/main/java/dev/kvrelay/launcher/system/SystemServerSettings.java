package dev.kvrelay.launcher.system;

import java.util.Map;
import java.util.Objects;

/**
 * Immutable and thread-safe: where the system HTTP server listens and which paths answer health (plugins-wire §4,
 * runtime-inputs §9). The server is disabled unless the port is ≥ 0 (upstream's default {@code -1}); {@code 0}
 * binds a free port.
 *
 * @param port {@code -1} = disabled, {@code 0} = any free port, else 1..65535
 * @param host the bind address ({@code DYN_SYSTEM_HOST}, default {@code 0.0.0.0})
 * @param healthPath the readiness path ({@code DYN_SYSTEM_HEALTH_PATH}, default {@code /health})
 * @param livePath the liveness path ({@code DYN_SYSTEM_LIVE_PATH}, default {@code /live}); same handler as health
 */
public record SystemServerSettings(int port, String host, String healthPath, String livePath) {

  /** {@code DYN_SYSTEM_PORT}. */
  public static final String PORT = "DYN_SYSTEM_PORT";
  /** {@code DYN_SYSTEM_HOST}. */
  public static final String HOST = "DYN_SYSTEM_HOST";
  /** {@code DYN_SYSTEM_HEALTH_PATH}. */
  public static final String HEALTH_PATH = "DYN_SYSTEM_HEALTH_PATH";
  /** {@code DYN_SYSTEM_LIVE_PATH}. */
  public static final String LIVE_PATH = "DYN_SYSTEM_LIVE_PATH";

  /** Upstream's default port: disabled. */
  public static final int DISABLED = -1;
  /** Default bind address. */
  public static final String DEFAULT_HOST = "0.0.0.0";
  /** Default readiness path. */
  public static final String DEFAULT_HEALTH_PATH = "/health";
  /** Default liveness path. */
  public static final String DEFAULT_LIVE_PATH = "/live";

  /** Routes the health paths may not shadow. */
  private static final String METRICS = SystemServer.METRICS_PATH;
  private static final String ENGINE_PREFIX = SystemServer.ENGINE_PREFIX;

  /**
   * Checks the values (the same rules as {@link #fromEnvironment}, reported as {@link IllegalArgumentException}).
   */
  public SystemServerSettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(healthPath, "healthPath");
    Objects.requireNonNull(livePath, "livePath");
    String problem = portProblem(port);
    if (problem == null) {
      problem = hostProblem(host);
    }
    if (problem == null) {
      problem = pathProblem(HEALTH_PATH, healthPath);
    }
    if (problem == null) {
      problem = pathProblem(LIVE_PATH, livePath);
    }
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  /** The defaults: disabled, {@code 0.0.0.0}, {@code /health}, {@code /live}. */
  public static SystemServerSettings defaults() {
    return new SystemServerSettings(DISABLED, DEFAULT_HOST, DEFAULT_HEALTH_PATH, DEFAULT_LIVE_PATH);
  }

  /**
   * Reads {@code DYN_SYSTEM_PORT}, {@code DYN_SYSTEM_HOST}, {@code DYN_SYSTEM_HEALTH_PATH} and
   * {@code DYN_SYSTEM_LIVE_PATH}; an absent variable takes its default.
   *
   * @throws SystemSettingsException naming the variable, the rule and the value, e.g. {@code DYN_SYSTEM_PORT must
   *     be an integer in -1..65535 (-1 disables the system server), got 'http'}
   */
  public static SystemServerSettings fromEnvironment(Map<String, String> env) throws SystemSettingsException {
    Objects.requireNonNull(env, "env");
    int port = DISABLED;
    String rawPort = env.get(PORT);
    if (rawPort != null) {
      try {
        port = Integer.parseInt(rawPort.trim());
      } catch (NumberFormatException e) {
        throw new SystemSettingsException(PORT, portRule(rawPort));
      }
      String problem = portProblem(port);
      if (problem != null) {
        throw new SystemSettingsException(PORT, problem);
      }
    }
    String host = env.getOrDefault(HOST, DEFAULT_HOST);
    String problem = hostProblem(host);
    if (problem != null) {
      throw new SystemSettingsException(HOST, problem);
    }
    String health = env.getOrDefault(HEALTH_PATH, DEFAULT_HEALTH_PATH);
    problem = pathProblem(HEALTH_PATH, health);
    if (problem != null) {
      throw new SystemSettingsException(HEALTH_PATH, problem);
    }
    String live = env.getOrDefault(LIVE_PATH, DEFAULT_LIVE_PATH);
    problem = pathProblem(LIVE_PATH, live);
    if (problem != null) {
      throw new SystemSettingsException(LIVE_PATH, problem);
    }
    return new SystemServerSettings(port, host, health, live);
  }

  /** Whether the server runs at all ({@code port ≥ 0}). */
  public boolean enabled() {
    return port >= 0;
  }

  private static String portRule(String value) {
    return PORT + " must be an integer in -1..65535 (-1 disables the system server), got '" + value + "'";
  }

  private static @org.jspecify.annotations.Nullable String portProblem(int port) {
    return port < DISABLED || port > 65_535 ? portRule(Integer.toString(port)) : null;
  }

  private static @org.jspecify.annotations.Nullable String hostProblem(String host) {
    if (host.isBlank() || !host.strip().equals(host) || host.chars().anyMatch(Character::isWhitespace)) {
      return HOST + " must be a host name or IP address without white space, got '" + host + "'";
    }
    return null;
  }

  private static @org.jspecify.annotations.Nullable String pathProblem(String name, String path) {
    if (!path.startsWith("/") || path.chars().anyMatch(c -> Character.isWhitespace(c) || c == '?' || c == '#')) {
      return name + " must be an absolute URL path starting with '/' (no white space, '?' or '#'), got '"
          + path + "'";
    }
    if (path.equals(METRICS) || path.equals(ENGINE_PREFIX.substring(0, ENGINE_PREFIX.length() - 1))
        || path.startsWith(ENGINE_PREFIX)) {
      return name + " must not shadow the system server's " + METRICS + " or " + ENGINE_PREFIX + "* routes, got '"
          + path + "'";
    }
    return null;
  }
}
