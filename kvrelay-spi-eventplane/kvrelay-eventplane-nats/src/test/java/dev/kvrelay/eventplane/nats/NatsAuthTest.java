package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneProvider;
import dev.kvrelay.spi.eventplane.EventPlaneProviders;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import dev.kvrelay.spi.eventplane.EventTopics;
import io.nats.client.Connection;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NATS_AUTH_* against nats-server configured with user/password, token and NKey authorization: the
 * {@code nats} provider (found through ServiceLoader) connects with the right credentials and receives an
 * authenticated publisher's messages; wrong or missing credentials fail {@code open} with
 * {@code TRANSPORT_FAILURE}.
 */
class NatsAuthTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("ns", "worker", "generate"));

  @TempDir Path dir;

  @BeforeAll
  static void tools() throws Exception {
    RawPublisher.requirePython();
    NatsServer.requireBinary();
  }

  private static EventPlane open(NatsServer server, String... nameValues) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put(NatsSettings.NATS_SERVER, server.url());
    for (int i = 0; i < nameValues.length; i += 2) {
      env.put(nameValues[i], nameValues[i + 1]);
    }
    EventPlaneProvider nats = EventPlaneProviders.load().byName("nats");
    assertThat(nats).isInstanceOf(NatsEventPlaneProvider.class);
    return nats.open(new EventPlaneSettings(env));
  }

  private static void assertRefused(NatsServer server, String... nameValues) {
    assertThatThrownBy(() -> open(server, nameValues).close())
        .isInstanceOfSatisfying(EventPlaneException.class,
            e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.TRANSPORT_FAILURE))
        .hasMessageContaining(server.url());
  }

  /** Subscribes, lets the raw publisher send 50 envelopes with {@code auth}, checks they all arrive. */
  private static void receivesFromRawPublisher(EventPlane plane, NatsServer server, String auth) throws Exception {
    Recording r = new Recording();
    plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
    RawPublisher.publish(server, SCOPE.subject(EventTopics.KV_EVENTS), EventTopics.KV_EVENTS, 5, 6, 0, 50, auth);
    r.awaitEvents(50, Duration.ofSeconds(20));
    for (int i = 0; i < 50; i++) {
      assertThat(r.events().get(i).event()).isEqualTo(RawPublisher.routerEvent(i, 6));
    }
  }

  @Test
  void userAndPassword() throws Exception {
    try (NatsServer server = NatsServer.startWith(dir, "user: relay\npassword: \"s3cret pw\"")) {
      try (EventPlane plane = open(server, NatsSettings.NATS_AUTH_USERNAME, "relay",
          NatsSettings.NATS_AUTH_PASSWORD, "s3cret pw")) {
        receivesFromRawPublisher(plane, server, "user:relay:s3cret pw");
      }
      assertRefused(server, NatsSettings.NATS_AUTH_USERNAME, "relay", NatsSettings.NATS_AUTH_PASSWORD, "wrong");
      assertRefused(server); // upstream's default user/user
    }
  }

  @Test
  void token() throws Exception {
    try (NatsServer server = NatsServer.startWith(dir, "token: \"t0k3n-abc\"")) {
      try (EventPlane plane = open(server, NatsSettings.NATS_AUTH_TOKEN, "t0k3n-abc")) {
        receivesFromRawPublisher(plane, server, "token:t0k3n-abc");
      }
      assertRefused(server, NatsSettings.NATS_AUTH_TOKEN, "t0k3n-abd");
    }
  }

  @Test
  void userAndPasswordWinOverToken() throws Exception {
    try (NatsServer server = NatsServer.startWith(dir, "token: \"t0k3n-abc\"")) {
      // Upstream priority: user + password first, so the right token alongside them is not used.
      assertRefused(server, NatsSettings.NATS_AUTH_USERNAME, "u", NatsSettings.NATS_AUTH_PASSWORD, "p",
          NatsSettings.NATS_AUTH_TOKEN, "t0k3n-abc");
    }
  }

  @Test
  void nkeySeed() throws Exception {
    NKey user = NKey.createUser(new SecureRandom());
    NKey stranger = NKey.createUser(new SecureRandom());
    String seed = new String(user.getSeed());
    String pub = new String(user.getPublicKey());
    try (NatsServer server = NatsServer.startWith(dir, "users: [ { nkey: \"" + pub + "\" } ]")) {
      try (EventPlane plane = open(server, NatsSettings.NATS_AUTH_NKEY, seed)) {
        Recording r = new Recording();
        plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
        List<byte[]> bytes = RawPublisher.dump(EventTopics.KV_EVENTS, 5, 6, 0, 20);
        try (Connection c = Nats.connect(new Options.Builder().server(server.url())
            .authHandler(new NkeyAuthHandler(seed)).build())) {
          for (byte[] b : bytes) {
            c.publish(SCOPE.subject(EventTopics.KV_EVENTS), b);
          }
          c.flush(Duration.ofSeconds(5));
        }
        r.awaitEvents(20, Duration.ofSeconds(20));
        assertThat(r.events().get(19).event()).isEqualTo(RawPublisher.routerEvent(19, 6));
      }
      assertRefused(server, NatsSettings.NATS_AUTH_NKEY, new String(stranger.getSeed()));
    }
  }
}
