package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the etcd connection settings, read from {@link DiscoverySettings}
 * ({@code runtime-inputs.md} §2.3, §9; {@code plugins-wire.md} §6). {@link #toString()} never shows the
 * password.
 *
 * @param endpoints {@code ETCD_ENDPOINTS}: comma-separated URLs, default {@code http://localhost:2379}
 * @param username {@code ETCD_AUTH_USERNAME}, set together with {@code password}, or null
 * @param password {@code ETCD_AUTH_PASSWORD}, or null
 * @param tls {@code ETCD_AUTH_CA} + {@code ETCD_AUTH_CLIENT_CERT} + {@code ETCD_AUTH_CLIENT_KEY}, or null
 * @param leaseTtl {@code ETCD_LEASE_TTL} in whole seconds, default 10
 * @param startupConnectTimeout {@code ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS}, default 120
 */
public record EtcdSettings(List<URI> endpoints, @Nullable String username, @Nullable String password,
    @Nullable Tls tls, Duration leaseTtl, Duration startupConnectTimeout) {

  /** {@code ETCD_ENDPOINTS}. */
  public static final String ENDPOINTS = "ETCD_ENDPOINTS";
  /** {@code ETCD_AUTH_USERNAME}. */
  public static final String USERNAME = "ETCD_AUTH_USERNAME";
  /** {@code ETCD_AUTH_PASSWORD}. */
  public static final String PASSWORD = "ETCD_AUTH_PASSWORD";
  /** {@code ETCD_AUTH_CA}: PEM file of the CA that signed the server certificate. */
  public static final String CA = "ETCD_AUTH_CA";
  /** {@code ETCD_AUTH_CLIENT_CERT}: PEM file of the client certificate. */
  public static final String CLIENT_CERT = "ETCD_AUTH_CLIENT_CERT";
  /** {@code ETCD_AUTH_CLIENT_KEY}: PEM file of the client key (PKCS#8). */
  public static final String CLIENT_KEY = "ETCD_AUTH_CLIENT_KEY";
  /** {@code ETCD_LEASE_TTL}. */
  public static final String LEASE_TTL = "ETCD_LEASE_TTL";
  /** {@code ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS}. */
  public static final String STARTUP_CONNECT_TIMEOUT = "ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS";

  /** The upstream default endpoint ({@code plugins-wire.md} §6). */
  public static final String DEFAULT_ENDPOINT = "http://localhost:2379";
  /** The upstream default primary-lease TTL ({@code runtime-inputs.md} §2.2). */
  public static final long DEFAULT_LEASE_TTL_SECONDS = 10;
  /** The upstream default startup connect timeout ({@code plugins-wire.md} §6). */
  public static final long DEFAULT_STARTUP_CONNECT_TIMEOUT_SECONDS = 120;

  /**
   * Immutable and thread-safe: the TLS identity files.
   *
   * @param ca PEM CA bundle
   * @param clientCert PEM client certificate chain
   * @param clientKey PEM client key
   */
  public record Tls(Path ca, Path clientCert, Path clientKey) {}

  /** Copies the endpoint list. */
  public EtcdSettings {
    endpoints = List.copyOf(endpoints);
  }

  /**
   * Reads the settings.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) naming the offending setting, never echoing a secret
   */
  public static EtcdSettings from(DiscoverySettings settings) throws DiscoveryException {
    List<URI> endpoints = endpoints(settings.get(ENDPOINTS, DEFAULT_ENDPOINT));
    String user = settings.get(USERNAME, "");
    String password = settings.get(PASSWORD, "");
    if (user.isEmpty() != password.isEmpty()) {
      throw invalid(USERNAME + " and " + PASSWORD + " must be set together");
    }
    Tls tls = tls(settings);
    boolean https = endpoints.stream().anyMatch(u -> u.getScheme().equals("https"));
    if (tls != null && !https) {
      throw invalid(CA + " is set but " + ENDPOINTS + " has no https:// endpoint");
    }
    if (https && endpoints.stream().anyMatch(u -> u.getScheme().equals("http"))) {
      throw invalid(ENDPOINTS + " mixes http:// and https:// endpoints");
    }
    return new EtcdSettings(endpoints, user.isEmpty() ? null : user, password.isEmpty() ? null : password, tls,
        Duration.ofSeconds(positiveSeconds(settings, LEASE_TTL, DEFAULT_LEASE_TTL_SECONDS)),
        Duration.ofSeconds(positiveSeconds(settings, STARTUP_CONNECT_TIMEOUT, DEFAULT_STARTUP_CONNECT_TIMEOUT_SECONDS)));
  }

  private static List<URI> endpoints(String csv) throws DiscoveryException {
    List<URI> out = new ArrayList<>();
    for (String part : csv.split(",", -1)) {
      String text = part.trim();
      if (text.isEmpty()) {
        throw invalid(ENDPOINTS + " has an empty entry");
      }
      URI uri;
      try {
        uri = new URI(text);
      } catch (URISyntaxException e) {
        throw invalid(ENDPOINTS + " entry '" + text + "' is not a URL: " + e.getReason());
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw invalid(ENDPOINTS + " entry '" + text + "' must start with http:// or https://");
      }
      if (uri.getHost() == null || uri.getPort() < 0) {
        throw invalid(ENDPOINTS + " entry '" + text + "' needs a host and a port");
      }
      out.add(URI.create(scheme + "://" + uri.getHost() + ":" + uri.getPort()));
    }
    return out;
  }

  private static @Nullable Tls tls(DiscoverySettings settings) throws DiscoveryException {
    String ca = settings.get(CA, "");
    String cert = settings.get(CLIENT_CERT, "");
    String key = settings.get(CLIENT_KEY, "");
    if (ca.isEmpty() && cert.isEmpty() && key.isEmpty()) {
      return null;
    }
    if (ca.isEmpty() || cert.isEmpty() || key.isEmpty()) {
      throw invalid(CA + ", " + CLIENT_CERT + " and " + CLIENT_KEY + " must be set together");
    }
    return new Tls(readable(CA, ca), readable(CLIENT_CERT, cert), readable(CLIENT_KEY, key));
  }

  private static Path readable(String name, String file) throws DiscoveryException {
    Path p = Path.of(file);
    if (!Files.isReadable(p)) {
      throw invalid(name + " names a file that cannot be read: " + file);
    }
    return p;
  }

  private static long positiveSeconds(DiscoverySettings settings, String name, long defaultValue)
      throws DiscoveryException {
    String text = settings.get(name, "");
    if (text.isEmpty()) {
      return defaultValue;
    }
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw invalid(name + " must be a whole number of seconds, got '" + text + "'");
    }
    if (v <= 0) {
      throw invalid(name + " must be positive, got " + v);
    }
    return v;
  }

  private static DiscoveryException invalid(String message) {
    return new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION, message);
  }

  /** Endpoints, user name, TLS and durations; never the password. */
  @Override
  public String toString() {
    return "EtcdSettings[endpoints=" + endpoints + ", user=" + (username == null ? "-" : username)
        + ", tls=" + (tls != null) + ", leaseTtl=" + leaseTtl + ", startupConnectTimeout=" + startupConnectTimeout + "]";
  }
}
