package dev.kvrelay.requestplane.tcp;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the settings of the TCP request plane, read from the environment names of
 * plugins-wire §1.2 / §1.3 and runtime-inputs §9.
 *
 * @param responseHost the advertised IP the response listener binds ({@code DYN_TCP_RESPONSE_STREAM_HOST})
 * @param responsePort its port, 0 = ephemeral ({@code DYN_TCP_RESPONSE_STREAM_PORT})
 * @param requestTimeout how long to wait for an ACK ({@code DYN_TCP_REQUEST_TIMEOUT} seconds, default 5)
 * @param connectTimeout how long to wait for a TCP connect ({@code DYN_TCP_CONNECT_TIMEOUT} seconds, default 5)
 * @param maxMessageBytes frame size limit ({@code DYN_TCP_MAX_MESSAGE_SIZE}, default 32 MiB)
 * @param tls the listener's TLS material, if any ({@code DYN_TCP_TLS_CERT_PATH}, {@code _KEY_PATH},
 *     {@code _CLIENT_CA_CERT_PATH})
 * @param connectionsPerWorker pooled request connections per worker address (a project constant, 4)
 * @param handshakeTimeout how long a call-home's first frame may take ({@link #HANDSHAKE_TIMEOUT}; shorter in tests)
 */
public record TcpRequestPlaneConfig(InetAddress responseHost, int responsePort, Duration requestTimeout,
    Duration connectTimeout, int maxMessageBytes, Optional<TlsFiles> tls, int connectionsPerWorker,
    Duration handshakeTimeout) {

  /** The default frame limit, {@code DEFAULT_TCP_MAX_MESSAGE_SIZE}: 32 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
  /** Default ACK and connect timeouts: 5 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  /** How long the first frame of a call-home connection may take (plugins-wire §1.2 step 4). */
  public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Immutable and thread-safe: PEM files of a TLS listener.
   *
   * @param certificate the certificate chain
   * @param privateKey the PKCS#8 private key
   * @param clientCa when present, clients must present a certificate signed by it (mTLS)
   */
  public record TlsFiles(Path certificate, Path privateKey, Optional<Path> clientCa) {}

  /** Checks ranges. */
  public TcpRequestPlaneConfig {
    if (responsePort < 0 || responsePort > 65535) {
      throw new IllegalArgumentException("DYN_TCP_RESPONSE_STREAM_PORT " + responsePort + " is outside 0..65535");
    }
    if (maxMessageBytes < 1024 || maxMessageBytes > Integer.MAX_VALUE - TwoPart.PREFIX_BYTES) {
      throw new IllegalArgumentException("DYN_TCP_MAX_MESSAGE_SIZE " + maxMessageBytes + " is out of range");
    }
    if (connectionsPerWorker < 1) {
      throw new IllegalArgumentException("connectionsPerWorker must be positive");
    }
    if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
      throw new IllegalArgumentException("handshakeTimeout must be positive");
    }
  }

  /** Loopback, ephemeral port, defaults otherwise (tests). */
  public static TcpRequestPlaneConfig loopback() {
    return fromProperties(Map.of("DYN_TCP_RESPONSE_STREAM_HOST", "127.0.0.1"));
  }

  /** This config with other timeouts. */
  public TcpRequestPlaneConfig withTimeouts(Duration request, Duration connect) {
    return new TcpRequestPlaneConfig(responseHost, responsePort, request, connect, maxMessageBytes, tls,
        connectionsPerWorker, handshakeTimeout);
  }

  /** This config with another call-home handshake timeout. */
  public TcpRequestPlaneConfig withHandshakeTimeout(Duration timeout) {
    return new TcpRequestPlaneConfig(responseHost, responsePort, requestTimeout, connectTimeout, maxMessageBytes, tls,
        connectionsPerWorker, timeout);
  }

  /** This config with another frame limit. */
  public TcpRequestPlaneConfig withMaxMessageBytes(int max) {
    return new TcpRequestPlaneConfig(responseHost, responsePort, requestTimeout, connectTimeout, max, tls,
        connectionsPerWorker, handshakeTimeout);
  }

  /**
   * Reads the settings.
   *
   * @throws IllegalArgumentException naming the variable when one is invalid: a host that is neither an IP
   *     nor an interface name, or is unspecified ({@code 0.0.0.0}, {@code ::}); a non-numeric or negative
   *     number; only one of the TLS certificate and key
   */
  public static TcpRequestPlaneConfig fromProperties(Map<String, String> env) {
    InetAddress host = responseHost(blankToNull(env.get("DYN_TCP_RESPONSE_STREAM_HOST")));
    int port = (int) number(env, "DYN_TCP_RESPONSE_STREAM_PORT", 0, 65535);
    Duration request = Duration.ofSeconds(number(env, "DYN_TCP_REQUEST_TIMEOUT", DEFAULT_TIMEOUT.toSeconds(), 86_400));
    Duration connect = Duration.ofSeconds(number(env, "DYN_TCP_CONNECT_TIMEOUT", DEFAULT_TIMEOUT.toSeconds(), 86_400));
    int max = (int) number(env, "DYN_TCP_MAX_MESSAGE_SIZE", DEFAULT_MAX_MESSAGE_BYTES,
        Integer.MAX_VALUE - TwoPart.PREFIX_BYTES);
    String cert = blankToNull(env.get("DYN_TCP_TLS_CERT_PATH"));
    String key = blankToNull(env.get("DYN_TCP_TLS_KEY_PATH"));
    String ca = blankToNull(env.get("DYN_TCP_TLS_CLIENT_CA_CERT_PATH"));
    Optional<TlsFiles> tls = Optional.empty();
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "DYN_TCP_TLS_CERT_PATH and DYN_TCP_TLS_KEY_PATH must be set together (only one is set)");
    }
    if (cert != null) {
      tls = Optional.of(new TlsFiles(Path.of(cert), Path.of(key), Optional.ofNullable(ca).map(Path::of)));
    } else if (ca != null) {
      throw new IllegalArgumentException("DYN_TCP_TLS_CLIENT_CA_CERT_PATH requires DYN_TCP_TLS_CERT_PATH and _KEY_PATH");
    }
    return new TcpRequestPlaneConfig(host, port, request, connect, max, tls, 4, HANDSHAKE_TIMEOUT);
  }

  private static @Nullable String blankToNull(@Nullable String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static long number(Map<String, String> env, String name, long dflt, long max) {
    String v = blankToNull(env.get(name));
    if (v == null) {
      return dflt;
    }
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a non-negative integer, got '" + v + "'", e);
    }
    if (n < 0 || n > max) {
      throw new IllegalArgumentException(name + " must be in 0.." + max + ", got " + n);
    }
    return n;
  }

  /**
   * The listener address: an IP literal or an exact interface name (its first IPv4 address, else its first
   * IPv6 one); unset → the first routable address of an up interface, IPv4 before IPv6, else 127.0.0.1.
   */
  static InetAddress responseHost(@Nullable String value) {
    if (value == null) {
      return autoDetect();
    }
    try {
      NetworkInterface nif = NetworkInterface.getByName(value);
      if (nif != null) {
        List<InetAddress> addrs = Collections.list(nif.getInetAddresses());
        for (Class<?> family : List.of(Inet4Address.class, Inet6Address.class)) {
          for (InetAddress a : addrs) {
            if (family.isInstance(a)) {
              return a;
            }
          }
        }
        throw new IllegalArgumentException("DYN_TCP_RESPONSE_STREAM_HOST interface '" + value + "' has no address");
      }
    } catch (SocketException e) {
      // not an interface name: try an IP literal
    }
    if (!looksLikeIpLiteral(value)) {
      throw new IllegalArgumentException(
          "DYN_TCP_RESPONSE_STREAM_HOST '" + value + "' is neither an IP address nor an interface name");
    }
    InetAddress a;
    try {
      a = InetAddress.getByName(value);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("DYN_TCP_RESPONSE_STREAM_HOST '" + value + "' is not an IP address", e);
    }
    if (a.isAnyLocalAddress()) {
      throw new IllegalArgumentException(
          "DYN_TCP_RESPONSE_STREAM_HOST '" + value + "' is unspecified; give the advertised IP");
    }
    return a;
  }

  private static boolean looksLikeIpLiteral(String v) {
    return v.matches("[0-9.]+") || (v.indexOf(':') >= 0 && v.matches("[0-9A-Fa-f:.%\\w]+"));
  }

  private static InetAddress autoDetect() {
    List<InetAddress> v4 = new ArrayList<>();
    List<InetAddress> v6 = new ArrayList<>();
    try {
      for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nif.isUp() || nif.isLoopback()) {
          continue;
        }
        for (InetAddress a : Collections.list(nif.getInetAddresses())) {
          if (a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress()) {
            continue;
          }
          (a instanceof Inet4Address ? v4 : v6).add(a);
        }
      }
    } catch (SocketException e) {
      // no interface list: fall back to loopback below
    }
    if (!v4.isEmpty()) {
      return v4.get(0);
    }
    if (!v6.isEmpty()) {
      return v6.get(0);
    }
    try {
      return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
