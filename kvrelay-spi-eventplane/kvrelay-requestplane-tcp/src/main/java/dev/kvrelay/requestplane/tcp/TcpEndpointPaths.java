package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.api.DynamoEndpointId;
import java.util.Locale;

/**
 * Stateless and thread-safe: the TCP transport string {@code host:port/endpoint_path} (plugins-wire §3):
 * splitting it as the Rust client does, building the newest instance path, and addressing a recovery query.
 */
public final class TcpEndpointPaths {
  private TcpEndpointPaths() {}

  /**
   * Immutable and thread-safe: a transport string split at its first {@code /}.
   *
   * @param host the host (an IP literal without brackets, or a host name)
   * @param port the port
   * @param endpointPath everything after the first {@code /}, verbatim
   */
  public record Address(String host, int port, String endpointPath) {
    /** {@code host:port}, IPv6 bracketed. */
    public String hostPort() {
      return hostPort(host, port);
    }

    /** {@code host:port} with an IPv6 literal bracketed. */
    public static String hostPort(String host, int port) {
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /**
   * Splits {@code transport} ({@code [tcp://]host:port/path}; IPv6 as {@code [addr]:port}).
   *
   * @throws IllegalArgumentException if there is no {@code /}, no port, or the port is not 1..65535
   */
  public static Address parse(String transport) {
    String s = transport.startsWith("tcp://") ? transport.substring("tcp://".length()) : transport;
    int slash = s.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("TCP transport '" + transport + "' has no endpoint path");
    }
    String hostPort = s.substring(0, slash);
    String path = s.substring(slash + 1);
    String host;
    String portText;
    if (hostPort.startsWith("[")) {
      int close = hostPort.indexOf(']');
      if (close < 0 || close + 1 >= hostPort.length() || hostPort.charAt(close + 1) != ':') {
        throw new IllegalArgumentException("TCP transport '" + transport + "' has a malformed IPv6 address");
      }
      host = hostPort.substring(1, close);
      portText = hostPort.substring(close + 2);
    } else {
      int colon = hostPort.lastIndexOf(':');
      if (colon <= 0 || hostPort.indexOf(':') != colon) {
        throw new IllegalArgumentException("TCP transport '" + transport + "' has no host:port");
      }
      host = hostPort.substring(0, colon);
      portText = hostPort.substring(colon + 1);
    }
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("TCP transport '" + transport + "' has a bad port", e);
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("TCP transport '" + transport + "' has port " + port + " outside 1..65535");
    }
    return new Address(host, port, path);
  }

  /** One path segment escaped as upstream's {@code instance_path}: {@code %}→{@code %25}, then {@code /}→{@code %2F}. */
  public static String escapeSegment(String name) {
    return name.replace("%", "%25").replace("/", "%2F");
  }

  /** The inverse of {@link #escapeSegment}. */
  public static String unescapeSegment(String segment) {
    return segment.replace("%2F", "/").replace("%25", "%");
  }

  /**
   * The newest instance path {@code {instance_id:x}/{ns}/{component}/{endpoint}} (plugins-wire §3), each name
   * escaped by {@link #escapeSegment}; the id in lowercase hex without padding.
   */
  public static String instancePath(DynamoEndpointId endpoint, long instanceId) {
    return Long.toHexString(instanceId).toLowerCase(Locale.ROOT) + "/" + escapeSegment(endpoint.namespace()) + "/"
        + escapeSegment(endpoint.component()) + "/" + escapeSegment(endpoint.endpoint());
  }

  /**
   * The endpoint path a query to {@code queryEndpointName} is sent on, given the target instance's own path
   * and endpoint name. When the target instance is that query endpoint (the normal case: its
   * {@code recovery_target}), its path is used verbatim, as plugins-wire §3 requires. Otherwise the last
   * {@code /}-segment (the escaped endpoint name in all three layouts of §3) is replaced by the escaped query
   * endpoint name: a project decision for targets advertised on another endpoint of the same instance.
   */
  public static String queryPath(String targetPath, String targetEndpointName, String queryEndpointName) {
    if (targetEndpointName.equals(queryEndpointName)) {
      return targetPath;
    }
    int last = targetPath.lastIndexOf('/');
    return (last < 0 ? "" : targetPath.substring(0, last + 1)) + escapeSegment(queryEndpointName);
  }
}
