package dev.kvrelay.engine;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the WAN listen address, parsed like Rust's {@code SocketAddr::from_str}
 * ({@code wan-grpc.md} §6.4): numeric IPv4 {@code a.b.c.d:port} or bracketed IPv6 {@code [addr]:port},
 * no hostnames, port required ({@code 0} = ephemeral). The text is kept exactly as given ({@code
 * 0.0.0.0:5561} stays {@code 0.0.0.0:5561}). Parsing never resolves a name.
 *
 * <p>IPv4 octets are 1–3 decimal digits without a leading zero, each ≤ 255; IPv6 groups are 1–4 hex
 * digits with at most one {@code ::}, optionally ending in an embedded IPv4 address; the port is decimal
 * (leading zeros allowed), ≤ 65 535. A {@code %} scope id is rejected (decision in §6.4).
 *
 * @param text the address exactly as configured
 * @param address the IP address ({@link Inet4Address} or {@link Inet6Address}, as written)
 * @param port the port, {@code 0..=65535}
 */
public record BindAddress(String text, InetAddress address, int port) {

  /** Message of every parse failure, as upstream words it. */
  public static final String INVALID_MESSAGE = "invalid KV DC Relay bind address";

  /** Checks the components. */
  public BindAddress {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(address, "address");
    if (port < 0 || port > 0xFFFF) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /**
   * Parses a bind address.
   *
   * @return the address, or empty if {@code text} is not a numeric socket address
   */
  public static Optional<BindAddress> tryParse(@Nullable String text) {
    if (text == null) {
      return Optional.empty();
    }
    byte[] ip;
    String portText;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
        return Optional.empty();
      }
      ip = parseIpv6(text.substring(1, close));
      portText = text.substring(close + 2);
    } else {
      int colon = text.lastIndexOf(':');
      if (colon < 0) {
        return Optional.empty();
      }
      ip = parseIpv4(text.substring(0, colon));
      portText = text.substring(colon + 1);
    }
    int port = parsePort(portText);
    if (ip == null || port < 0) {
      return Optional.empty();
    }
    try {
      InetAddress address = ip.length == 4 ? InetAddress.getByAddress(ip) : Inet6Address.getByAddress(null, ip, -1);
      return Optional.of(new BindAddress(text, address, port));
    } catch (UnknownHostException e) {
      return Optional.empty(); // unreachable: the length is 4 or 16
    }
  }

  /** True for a bracketed IPv6 address. */
  public boolean isIpv6() {
    return address instanceof Inet6Address;
  }

  /** The socket address to bind (no name lookup). */
  public InetSocketAddress socketAddress() {
    return new InetSocketAddress(address, port);
  }

  /** The address exactly as configured. */
  @Override
  public String toString() {
    return text;
  }

  /** Decimal port with optional leading zeros, or -1. */
  private static int parsePort(String s) {
    if (s.isEmpty()) {
      return -1;
    }
    int value = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
      if (value > 0xFFFF) {
        return -1;
      }
    }
    return value;
  }

  static byte @Nullable [] parseIpv4(String s) {
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) {
      return null;
    }
    byte[] out = new byte[4];
    for (int i = 0; i < 4; i++) {
      int octet = parseOctet(parts[i]);
      if (octet < 0) {
        return null;
      }
      out[i] = (byte) octet;
    }
    return out;
  }

  private static int parseOctet(String p) {
    if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v <= 255 ? v : -1;
  }

  static byte @Nullable [] parseIpv6(String s) {
    int gap = s.indexOf("::");
    int[] groups = new int[8];
    if (gap < 0) {
      int n = readGroups(s, groups, 0, 8, true);
      return n == 8 ? toBytes(groups) : null;
    }
    if (s.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    int[] head = new int[8];
    int headCount = readGroups(s.substring(0, gap), head, 0, 7, false);
    if (headCount < 0) {
      return null;
    }
    int[] tail = new int[8];
    int tailCount = readGroups(s.substring(gap + 2), tail, 0, 7 - headCount, true);
    if (tailCount < 0) {
      return null;
    }
    System.arraycopy(head, 0, groups, 0, headCount);
    System.arraycopy(tail, 0, groups, 8 - tailCount, tailCount);
    return toBytes(groups);
  }

  /**
   * Reads colon-separated groups into {@code out[from..]}; at most {@code limit} groups; the last item may
   * be an IPv4 address (two groups) when {@code allowIpv4} and room remains (never before {@code ::}, as
   * Rust). Returns the group count or -1.
   */
  private static int readGroups(String s, int[] out, int from, int limit, boolean allowIpv4) {
    if (s.isEmpty()) {
      return 0;
    }
    String[] parts = s.split(":", -1);
    int count = 0;
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i];
      boolean last = i == parts.length - 1;
      if (last && p.indexOf('.') >= 0) {
        byte[] v4 = parseIpv4(p);
        if (!allowIpv4 || v4 == null || count + 2 > limit) {
          return -1;
        }
        out[from + count++] = ((v4[0] & 0xFF) << 8) | (v4[1] & 0xFF);
        out[from + count++] = ((v4[2] & 0xFF) << 8) | (v4[3] & 0xFF);
        return count;
      }
      int g = parseHexGroup(p);
      if (g < 0 || count + 1 > limit) {
        return -1;
      }
      out[from + count++] = g;
    }
    return count;
  }

  private static int parseHexGroup(String p) {
    if (p.isEmpty() || p.length() > 4) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return -1;
      }
      v = (v << 4) | d;
    }
    return v;
  }

  private static byte[] toBytes(int[] groups) {
    byte[] out = new byte[16];
    for (int i = 0; i < 8; i++) {
      out[2 * i] = (byte) (groups[i] >>> 8);
      out[2 * i + 1] = (byte) groups[i];
    }
    return out;
  }
}
