package dev.kvrelay.eventplane.zmq;

import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the syntax check of a ZMQ endpoint a SUB socket connects to, so a malformed
 * advertisement is refused with a clear message before it reaches the socket.
 */
final class ZmqEndpoints {
  private ZmqEndpoints() {}

  /**
   * Why {@code endpoint} cannot be connected to, or {@code null} if it can: {@code tcp://host:port} (host a
   * name, an IPv4 literal or a bracketed IPv6 literal; port 1–65535), {@code ipc://path} or
   * {@code inproc://name}.
   */
  static @Nullable String problem(String endpoint) {
    if (endpoint.startsWith("ipc://") || endpoint.startsWith("inproc://")) {
      return endpoint.indexOf("://") + 3 < endpoint.length() ? null : "has no address";
    }
    if (!endpoint.startsWith("tcp://")) {
      return "is not a tcp://, ipc:// or inproc:// endpoint";
    }
    String rest = endpoint.substring(6);
    int colon = rest.lastIndexOf(':');
    if (colon <= 0) {
      return "has no host:port";
    }
    String host = rest.substring(0, colon);
    if (host.startsWith("[") != host.endsWith("]") || host.equals("[]") || host.equals("*")) {
      return "has a malformed host '" + host + "'";
    }
    if (!host.startsWith("[") && host.indexOf(':') >= 0) {
      return "has an unbracketed IPv6 host '" + host + "'";
    }
    String port = rest.substring(colon + 1);
    if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return "has a malformed port '" + port + "'";
    }
    int p = Integer.parseInt(port);
    if (p < 1 || p > 65535) {
      return "has port " + p + " outside 1-65535";
    }
    return null;
  }
}
