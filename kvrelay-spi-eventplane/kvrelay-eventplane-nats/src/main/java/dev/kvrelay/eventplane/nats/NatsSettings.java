package dev.kvrelay.eventplane.nats;

import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import dev.kvrelay.spi.eventplane.PublisherSequences;
import io.nats.client.NKey;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: what a {@link NatsEventPlane} connects with. {@link #from} reads the
 * environment names upstream uses (plugins-wire §6, runtime-inputs §9); the tuning fields have no
 * environment name and are set with the {@code with…} methods.
 *
 * @param servers {@code NATS_SERVER}: one or more {@code nats://host:port} URLs (comma-separated in the
 *     variable), default {@code nats://localhost:4222}
 * @param auth from {@code NATS_AUTH_*}, see {@link NatsAuth}
 * @param connectTimeout how long the first connection may take before {@code open} fails
 * @param reconnectInitialWait the first wait after a lost connection; doubled per failed attempt
 * @param reconnectMaxWait the longest wait between reconnect attempts (attempts never stop)
 * @param pendingMessageLimit messages a subscription may hold undelivered before NATS drops new ones
 * @param pendingByteLimit bytes a subscription may hold undelivered before NATS drops new ones
 * @param publisherCapacity publishers whose sequence each subscription remembers
 *     (least recently heard forgotten first; the same default as the SPI's {@link PublisherSequences})
 * @param faultPollInterval the longest a connection fault waits for an idle delivery thread
 * @param pingInterval how often the client pings the server; two unanswered pings count as a lost
 *     connection (detects a silently dead server or network path)
 */
public record NatsSettings(
    List<String> servers,
    NatsAuth auth,
    Duration connectTimeout,
    Duration reconnectInitialWait,
    Duration reconnectMaxWait,
    long pendingMessageLimit,
    long pendingByteLimit,
    int publisherCapacity,
    Duration faultPollInterval,
    Duration pingInterval) {

  /** The server address name. */
  public static final String NATS_SERVER = "NATS_SERVER";
  /** User name (with {@link #NATS_AUTH_PASSWORD}). */
  public static final String NATS_AUTH_USERNAME = "NATS_AUTH_USERNAME";
  /** Password (with {@link #NATS_AUTH_USERNAME}). */
  public static final String NATS_AUTH_PASSWORD = "NATS_AUTH_PASSWORD";
  /** Token. */
  public static final String NATS_AUTH_TOKEN = "NATS_AUTH_TOKEN";
  /** NKey seed. */
  public static final String NATS_AUTH_NKEY = "NATS_AUTH_NKEY";
  /** Credentials file path. */
  public static final String NATS_AUTH_CREDENTIALS_FILE = "NATS_AUTH_CREDENTIALS_FILE";
  /** Upstream's default server. */
  public static final String DEFAULT_SERVER = "nats://localhost:4222";
  /** Upstream's credentials when no {@code NATS_AUTH_*} is set. */
  public static final NatsAuth DEFAULT_AUTH = new NatsAuth.UserPassword("user", "user");

  /** Validates and copies. */
  public NatsSettings {
    servers = List.copyOf(servers);
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("at least one NATS server is required");
    }
    Objects.requireNonNull(auth, "auth");
    requirePositive(connectTimeout, "connectTimeout");
    requirePositive(reconnectInitialWait, "reconnectInitialWait");
    requirePositive(reconnectMaxWait, "reconnectMaxWait");
    requirePositive(faultPollInterval, "faultPollInterval");
    requirePositive(pingInterval, "pingInterval");
    if (reconnectMaxWait.compareTo(reconnectInitialWait) < 0) {
      throw new IllegalArgumentException("reconnectMaxWait " + reconnectMaxWait + " is below reconnectInitialWait "
          + reconnectInitialWait);
    }
    if (pendingMessageLimit <= 0 || pendingByteLimit <= 0 || publisherCapacity <= 0) {
      throw new IllegalArgumentException("pending limits and publisher capacity must be positive");
    }
  }

  /** Defaults for everything but the servers and the credentials. */
  public static NatsSettings of(List<String> servers, NatsAuth auth) {
    return new NatsSettings(servers, auth, Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofSeconds(5),
        524_288, 64L << 20, PublisherSequences.DEFAULT_CAPACITY, Duration.ofMillis(50), Duration.ofSeconds(10));
  }

  /**
   * Reads {@code NATS_SERVER} and {@code NATS_AUTH_*} from {@code settings}; blank values count as unset.
   *
   * @throws EventPlaneException {@code INVALID_ARGUMENT} if a server is not a {@code nats://} URL, only one
   *     of user name and password is set, the NKey seed is not a user seed, or the credentials file is not
   *     a readable file
   */
  public static NatsSettings from(EventPlaneSettings settings) throws EventPlaneException {
    String server = value(settings, NATS_SERVER).orElse(DEFAULT_SERVER);
    List<String> servers = new ArrayList<>();
    for (String s : server.split(",", -1)) {
      String url = s.trim();
      if (!url.startsWith("nats://") || url.length() == "nats://".length()) {
        throw invalid(NATS_SERVER + " must list nats://host:port URLs separated by commas, got '" + server + "'");
      }
      servers.add(url);
    }
    return of(servers, auth(settings));
  }

  private static NatsAuth auth(EventPlaneSettings settings) throws EventPlaneException {
    Optional<String> user = value(settings, NATS_AUTH_USERNAME);
    Optional<String> password = value(settings, NATS_AUTH_PASSWORD);
    if (user.isPresent() != password.isPresent()) {
      throw invalid(NATS_AUTH_USERNAME + " and " + NATS_AUTH_PASSWORD + " must be set together (only "
          + (user.isPresent() ? NATS_AUTH_USERNAME : NATS_AUTH_PASSWORD) + " is set)");
    }
    if (user.isPresent()) {
      return new NatsAuth.UserPassword(user.get(), password.get());
    }
    Optional<String> token = value(settings, NATS_AUTH_TOKEN);
    if (token.isPresent()) {
      return new NatsAuth.Token(token.get());
    }
    Optional<String> seed = value(settings, NATS_AUTH_NKEY);
    if (seed.isPresent()) {
      String s = seed.get().trim();
      try {
        NKey key = NKey.fromSeed(s.toCharArray());
        if (key.getType() != NKey.Type.USER) {
          throw invalid(NATS_AUTH_NKEY + " must be a user NKey seed (SU…), got a " + key.getType() + " seed");
        }
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw invalid(NATS_AUTH_NKEY + " is not a valid NKey seed: " + e.getMessage());
      }
      return new NatsAuth.NKeySeed(s);
    }
    Optional<String> creds = value(settings, NATS_AUTH_CREDENTIALS_FILE);
    if (creds.isPresent()) {
      Path path;
      try {
        path = Path.of(creds.get());
      } catch (InvalidPathException e) {
        throw invalid(NATS_AUTH_CREDENTIALS_FILE + " is not a path: " + e.getMessage());
      }
      if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
        throw invalid(NATS_AUTH_CREDENTIALS_FILE + " " + path + " is not a readable file");
      }
      return new NatsAuth.CredentialsFile(path);
    }
    return DEFAULT_AUTH;
  }

  /** The same settings with other pending limits. */
  public NatsSettings withPendingLimits(long messages, long bytes) {
    return new NatsSettings(servers, auth, connectTimeout, reconnectInitialWait, reconnectMaxWait, messages, bytes,
        publisherCapacity, faultPollInterval, pingInterval);
  }

  /** The same settings with another reconnect backoff. */
  public NatsSettings withReconnectWait(Duration initial, Duration max) {
    return new NatsSettings(servers, auth, connectTimeout, initial, max, pendingMessageLimit, pendingByteLimit,
        publisherCapacity, faultPollInterval, pingInterval);
  }

  /** The same settings with another ping interval. */
  public NatsSettings withPingInterval(Duration interval) {
    return new NatsSettings(servers, auth, connectTimeout, reconnectInitialWait, reconnectMaxWait, pendingMessageLimit,
        pendingByteLimit, publisherCapacity, faultPollInterval, interval);
  }

  /**
   * The wait before reconnect attempt {@code attempt} (1-based): {@link #reconnectInitialWait} doubled per
   * earlier attempt, at most {@link #reconnectMaxWait}.
   */
  public Duration reconnectWait(long attempt) {
    long initial = reconnectInitialWait.toNanos();
    long max = reconnectMaxWait.toNanos();
    long shift = Math.max(0, Math.min(attempt - 1, 62));
    long wait = shift >= Long.numberOfLeadingZeros(initial) - 1 ? max : Math.min(max, initial << shift);
    return Duration.ofNanos(wait);
  }

  private static Optional<String> value(EventPlaneSettings settings, String name) {
    return settings.property(name).filter(v -> !v.isBlank());
  }

  private static EventPlaneException invalid(String message) {
    return new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT, message);
  }

  private static void requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
  }
}
