package dev.kvrelay.eventplane.nats;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventSubscription;
import io.nats.client.AuthHandler;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.nats.client.support.JsonParseException;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import io.nats.client.support.JwtUtils;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the NATS core event plane (plugins-wire §6, runtime-inputs §5.5): one jnats connection,
 * and per subscription a core-NATS subscription of {@code EventScope.subject(topic)} read by its own
 * delivery thread, whose message bodies are msgpack envelopes decoded with the SPI's
 * {@code EventPlaneCodec}.
 *
 * <p>The connection reconnects forever with exponential backoff ({@link NatsSettings#reconnectWait}) and
 * NATS re-sends the subscriptions. Nothing lost is silent: a lost connection, its return, messages NATS
 * dropped over a subscription's pending limits, a publisher heard for the first time (a new id: a restarted
 * worker, or a stream joined late), and a publisher's sequence skipping ahead or going back are each counted
 * ({@link #stats()}), logged through slf4j and reported to the listener as an {@link EventPlaneFault}.
 * Subscriptions receive every publisher of their subject, so channels are not needed
 * ({@link #connectsToChannels()} is false).
 */
public final class NatsEventPlane implements EventPlane {
  private static final Logger LOG = LoggerFactory.getLogger(NatsEventPlane.class);

  private final NatsSettings settings;
  private final CopyOnWriteArrayList<NatsEventSubscription> subscriptions = new CopyOnWriteArrayList<>();
  private final Object lifecycle = new Object();
  private volatile @Nullable Connection connection;
  private volatile boolean closed;
  /** True between a connection (or reconnection) and its loss: jnats repeats DISCONNECTED per failed attempt. */
  private final AtomicBoolean up = new AtomicBoolean();

  final LongAdder disconnects = new LongAdder();
  final LongAdder reconnects = new LongAdder();
  final LongAdder droppedMessages = new LongAdder();
  final LongAdder newPublishers = new LongAdder();
  final LongAdder lateJoins = new LongAdder();
  final LongAdder sequenceGaps = new LongAdder();
  final LongAdder missingMessages = new LongAdder();
  final LongAdder sequenceRegressions = new LongAdder();
  final LongAdder publisherEvictions = new LongAdder();
  final LongAdder delivered = new LongAdder();
  final LongAdder decodeErrors = new LongAdder();
  final LongAdder listenerFailures = new LongAdder();
  final LongAdder faultsReported = new LongAdder();

  private NatsEventPlane(NatsSettings settings) {
    this.settings = settings;
  }

  /**
   * Connects to the first reachable server of {@code settings}; later losses are reconnected forever.
   *
   * @throws EventPlaneException {@code TRANSPORT_FAILURE} if no server accepts the connection within the
   *     connect timeout (authentication refusals included; the message names the credentials used, secrets
   *     redacted, e.g. the credentials file); {@code INVALID_ARGUMENT} if the credentials file is unreadable or
   *     not a user JWT with its seed (the message names the file)
   */
  public static NatsEventPlane open(NatsSettings settings) throws EventPlaneException {
    NatsEventPlane plane = new NatsEventPlane(Objects.requireNonNull(settings, "settings"));
    plane.connect();
    return plane;
  }

  private void connect() throws EventPlaneException {
    Options.Builder b = new Options.Builder()
        .servers(settings.servers().toArray(String[]::new))
        .connectionName("kvrelay-eventplane")
        .connectionTimeout(settings.connectTimeout())
        .maxReconnects(-1)
        .pingInterval(settings.pingInterval())
        .maxPingsOut(2)
        .reconnectDelayHandler(settings::reconnectWait)
        .connectionListener(this::onConnectionEvent)
        .errorListener(new Errors());
    NatsAuth auth = settings.auth();
    if (auth instanceof NatsAuth.UserPassword up) {
      b.userInfo(up.username().toCharArray(), up.password().toCharArray());
    } else if (auth instanceof NatsAuth.Token t) {
      b.token(t.token().toCharArray());
    } else if (auth instanceof NatsAuth.NKeySeed n) {
      b.authHandler(new NkeyAuthHandler(n.seed()));
    } else if (auth instanceof NatsAuth.CredentialsFile c) {
      b.authHandler(credentials(c.path()));
    }
    try {
      connection = Nats.connect(b.build());
      up.set(true);
    } catch (AuthenticationException e) {
      throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE,
          "NATS server " + settings.servers() + " refused the credentials (" + auth + "): " + e.getMessage(), e);
    } catch (IOException e) {
      throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE,
          "cannot connect to NATS server " + settings.servers() + " (" + auth + "): " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE,
          "interrupted while connecting to NATS server " + settings.servers(), e);
    }
    LOG.info("NATS event plane connected to {} ({})", connection.getConnectedUrl(), auth.getClass().getSimpleName());
  }

  /**
   * jnats' handler for a {@code .creds} file, after checking with jnats' own reader that the file holds a user
   * JWT and the seed that JWT was issued to: a broken file is a settings error naming it, not a refused
   * connection.
   *
   * @throws EventPlaneException {@code INVALID_ARGUMENT} naming {@code NATS_AUTH_CREDENTIALS_FILE} and the file
   */
  static AuthHandler credentials(Path file) throws EventPlaneException {
    AuthHandler handler = Nats.credentials(file.toString());
    String why;
    try {
      char[] jwt = handler.getJWT();
      String[] parts = jwt == null ? new String[0] : new String(jwt).split("\\.");
      if (parts.length != 3) {
        why = "no user JWT (header.claims.signature) in its JWT block";
      } else {
        JsonValue claims = JsonParser.parse(JwtUtils.getClaimBody(new String(jwt)));
        JsonValue sub = claims.map == null ? null : claims.map.get("sub");
        handler.sign(new byte[] {0});
        String user = new String(handler.getID());
        if (sub == null || sub.string == null) {
          why = "its JWT has no subject";
        } else if (!sub.string.equals(user)) {
          why = "its JWT was issued to " + sub.string + " but its seed is user " + user;
        } else {
          return handler;
        }
      }
    } catch (IllegalStateException | IllegalArgumentException | JsonParseException e) {
      why = e.getMessage() + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : "");
    }
    throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT,
        NatsSettings.NATS_AUTH_CREDENTIALS_FILE + " " + file + " is not a usable NATS credentials file: " + why);
  }

  /** The settings this plane was opened with. */
  public NatsSettings settings() {
    return settings;
  }

  @Override
  public EventSubscription subscribe(EventScope scope, String topic, EventListener listener)
      throws EventPlaneException {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(listener, "listener");
    String subject = scope.subject(topic);
    NatsEventSubscription s;
    synchronized (lifecycle) {
      Connection c = connection;
      if (closed || c == null) {
        throw new EventPlaneException(EventPlaneException.Kind.CLOSED, "NATS event plane is closed");
      }
      Subscription sub;
      try {
        sub = c.subscribe(subject);
      } catch (IllegalArgumentException e) {
        throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT,
            "invalid NATS subject " + subject + ": " + e.getMessage(), e);
      } catch (IllegalStateException e) {
        throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE,
            "NATS connection refused the subscription to " + subject + ": " + e.getMessage(), e);
      }
      sub.setPendingLimits(settings.pendingMessageLimit(), settings.pendingByteLimit());
      s = new NatsEventSubscription(this, scope, topic, subject, listener, sub);
      subscriptions.add(s);
      s.start();
    }
    awaitServer(subject);
    LOG.info("NATS subscription to {}", subject);
    return s;
  }

  /** Makes a subscription effective on the server before returning, when connected (one PING/PONG). */
  private void awaitServer(String subject) {
    Connection c = connection;
    if (c == null || c.getStatus() != Connection.Status.CONNECTED) {
      return;
    }
    try {
      c.flush(settings.connectTimeout());
    } catch (TimeoutException | IllegalStateException e) {
      LOG.warn("NATS subscription to {} not yet confirmed by the server: {}", subject, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean connectsToChannels() {
    return false;
  }

  /** A snapshot of the counters. */
  public NatsPlaneStats stats() {
    Connection c = connection;
    return new NatsPlaneStats(c != null && c.getStatus() == Connection.Status.CONNECTED,
        disconnects.sum(), reconnects.sum(), droppedMessages.sum(), newPublishers.sum(), lateJoins.sum(),
        sequenceGaps.sum(), missingMessages.sum(),
        sequenceRegressions.sum(), publisherEvictions.sum(), delivered.sum(), decodeErrors.sum(),
        listenerFailures.sum(), faultsReported.sum());
  }

  void removed(NatsEventSubscription s) {
    subscriptions.remove(s);
  }

  boolean isClosed() {
    return closed;
  }

  private String server(Connection c) {
    String url = c.getConnectedUrl();
    return url != null ? url : String.join(",", settings.servers());
  }

  private void onConnectionEvent(Connection c, ConnectionListener.Events event) {
    if (closed || connection == null) {
      return; // closing, or a failed first connection (open reports it)
    }
    switch (event) {
      case DISCONNECTED -> {
        if (!up.compareAndSet(true, false)) {
          LOG.debug("NATS reconnect attempt to {} failed; retrying", server(c));
          return;
        }
        disconnects.increment();
        String server = server(c);
        LOG.warn("NATS connection to {} lost; messages published until it is back are lost to {} subscriptions; "
            + "reconnecting (backoff {} doubling to {})", server, subscriptions.size(),
            settings.reconnectInitialWait(), settings.reconnectMaxWait());
        broadcast(new EventPlaneFault.Disconnected(server));
      }
      case RECONNECTED -> {
        up.set(true);
        reconnects.increment();
        String server = server(c);
        LOG.warn("NATS connection to {} re-established; {} subscriptions re-sent", server, subscriptions.size());
        broadcast(new EventPlaneFault.Reconnected(server));
      }
      case CLOSED -> {
        LOG.error("NATS connection closed unexpectedly; no further messages will arrive");
        broadcast(new EventPlaneFault.Disconnected("connection closed"));
      }
      case LAME_DUCK -> LOG.warn("NATS server {} entered lame-duck mode", server(c));
      default -> LOG.debug("NATS connection event {}", event);
    }
  }

  private void broadcast(EventPlaneFault fault) {
    for (NatsEventSubscription s : subscriptions) {
      s.enqueueFault(fault);
    }
  }

  /** Thread-safe (stateless): jnats' error callbacks, logged; the drops themselves are counted by the subscriptions. */
  private final class Errors implements ErrorListener {
    @Override
    public void errorOccurred(Connection conn, String error) {
      if (connection == null) {
        LOG.debug("NATS server error while connecting: {}", error); // open reports it
        return;
      }
      LOG.warn("NATS server error: {}", error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      if (closed) {
        return;
      }
      if (up.get()) {
        LOG.warn("NATS connection exception: {}", exp.toString());
      } else {
        LOG.debug("NATS connection exception while reconnecting: {}", exp.toString());
      }
    }

    @Override
    public void slowConsumerDetected(Connection conn, Consumer consumer) {
      LOG.warn("NATS slow consumer: a subscription reached its pending limits ({} messages, {} bytes); new "
          + "messages are dropped until it catches up", consumer.getPendingMessageLimit(),
          consumer.getPendingByteLimit());
    }
  }

  @Override
  public void close() {
    Connection c;
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      c = connection;
    }
    for (NatsEventSubscription s : subscriptions) {
      s.close();
    }
    if (c != null) {
      try {
        c.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    LOG.info("NATS event plane closed");
  }

  /** The pending limits, for messages. */
  String pendingLimits() {
    return "pending limits " + settings.pendingMessageLimit() + " messages / " + settings.pendingByteLimit() + " bytes";
  }

  Duration faultPollInterval() {
    return settings.faultPollInterval();
  }

  int publisherCapacity() {
    return settings.publisherCapacity();
  }
}
