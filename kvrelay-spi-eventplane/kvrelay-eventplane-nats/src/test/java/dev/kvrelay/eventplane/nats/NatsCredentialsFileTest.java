package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventPlaneProviders;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import dev.kvrelay.spi.eventplane.EventTopics;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code NATS_AUTH_CREDENTIALS_FILE} against a real nats-server in operator mode ({@code resolver: MEMORY}),
 * with the operator, account and user JWTs minted in the test by jnats' {@code JwtUtils}: the {@code nats}
 * provider (through ServiceLoader) connects with a {@code .creds} file and receives python3-msgpack's bytes
 * published by another user of the account. A user the server does not trust is refused with
 * {@code TRANSPORT_FAILURE}; an absent, unreadable or malformed file with {@code INVALID_ARGUMENT}; each message
 * names the file.
 */
class NatsCredentialsFileTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final String SUBJECT = SCOPE.subject(EventTopics.KV_EVENTS);
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @BeforeAll
  static void tools() throws Exception {
    RawPublisher.requirePython();
    NatsServer.requireBinary();
  }

  private static EventPlane open(NatsServer server, Path creds) throws Exception {
    return EventPlaneProviders.load().byName("nats").open(new EventPlaneSettings(Map.of(
        NatsSettings.NATS_SERVER, server.url(), NatsSettings.NATS_AUTH_CREDENTIALS_FILE, creds.toString())));
  }

  private static void assertRefused(NatsServer server, Path creds, EventPlaneException.Kind kind) {
    assertThatThrownBy(() -> open(server, creds).close())
        .isInstanceOfSatisfying(EventPlaneException.class, e -> assertThat(e.kind()).isEqualTo(kind))
        .hasMessageContaining(creds.toString());
  }

  @Test
  void aCredsFileOfTheTrustedAccountConnectsAndReceives() throws Exception {
    NatsOperator op = NatsOperator.create();
    Path relay = op.userCreds(dir.resolve("relay.creds"), "relay");
    Path worker = op.userCreds(dir.resolve("worker.creds"), "worker");
    List<byte[]> bytes = RawPublisher.dump(EventTopics.KV_EVENTS, 12, 34, 0, 40);
    try (NatsServer server = NatsServer.startWithConfig(dir, op.serverConfig())) {
      assertThatThrownBy(() -> Nats.connect(new Options.Builder().server(server.url()).build()).close())
          .as("operator mode: a client without credentials is refused").isInstanceOf(Exception.class);
      try (EventPlane plane = open(server, relay)) {
        assertThat(plane).isInstanceOf(NatsEventPlane.class);
        assertThat(((NatsEventPlane) plane).settings().auth()).isEqualTo(new NatsAuth.CredentialsFile(relay));
        Recording r = new Recording();
        plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r);
        try (Connection pub = Nats.connect(new Options.Builder().server(server.url())
            .authHandler(Nats.credentials(worker.toString())).build())) {
          for (byte[] b : bytes) {
            pub.publish(SUBJECT, b);
          }
          pub.flush(Duration.ofSeconds(10));
        }
        r.awaitEvents(40, WAIT);
        List<Recording.Event> got = r.events();
        for (int i = 0; i < 40; i++) {
          assertThat(got.get(i).envelope()).isEqualTo(RawPublisher.envelope(EventTopics.KV_EVENTS, 12, i));
          assertThat(got.get(i).event()).isEqualTo(RawPublisher.routerEvent(i, 34));
        }
        assertThat(r.faults()).containsExactly(new EventPlaneFault.NewPublisher(12, 0));
        assertThat(((NatsEventPlane) plane).stats().connected()).isTrue();
      }
    }
  }

  @Test
  void aUserOfAnAccountTheServerDoesNotKnowIsRefusedNamingTheFile() throws Exception {
    NatsOperator trusted = NatsOperator.create();
    Path stranger = NatsOperator.create().userCreds(dir.resolve("stranger.creds"), "stranger");
    try (NatsServer server = NatsServer.startWithConfig(dir, trusted.serverConfig())) {
      assertThatThrownBy(() -> open(server, stranger).close())
          .isInstanceOfSatisfying(EventPlaneException.class,
              e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.TRANSPORT_FAILURE))
          .hasMessageContaining(server.url())
          .hasMessageContaining(stranger.toString());
    }
  }

  @Test
  void anAbsentOrMalformedCredsFileIsRefusedNamingTheFile() throws Exception {
    NatsOperator op = NatsOperator.create();
    Path good = op.userCreds(dir.resolve("good.creds"), "good");
    Path other = op.userCreds(dir.resolve("other.creds"), "other");
    String goodText = Files.readString(good);
    String jwtBlock = goodText.substring(0, goodText.indexOf("***"));
    try (NatsServer server = NatsServer.startWithConfig(dir, op.serverConfig())) {
      assertRefused(server, dir.resolve("absent.creds"), EventPlaneException.Kind.INVALID_ARGUMENT);
      assertRefused(server, dir, EventPlaneException.Kind.INVALID_ARGUMENT); // a directory

      Path garbage = Files.writeString(dir.resolve("garbage.creds"), "not a creds file\n");
      assertRefused(server, garbage, EventPlaneException.Kind.INVALID_ARGUMENT);

      Path jwtOnly = Files.writeString(dir.resolve("jwt-only.creds"), jwtBlock, StandardCharsets.US_ASCII);
      assertRefused(server, jwtOnly, EventPlaneException.Kind.INVALID_ARGUMENT);

      String otherText = Files.readString(other);
      Path mixed = Files.writeString(dir.resolve("mixed.creds"),
          jwtBlock + otherText.substring(otherText.indexOf("***")), StandardCharsets.US_ASCII);
      assertThatThrownBy(() -> open(server, mixed).close())
          .isInstanceOfSatisfying(EventPlaneException.class,
              e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.INVALID_ARGUMENT))
          .hasMessageContaining(mixed.toString())
          .hasMessageContaining("issued to");

      // removed after the settings were read: open names it too
      Path gone = Files.copy(good, dir.resolve("gone.creds"));
      NatsSettings settings = NatsSettings.from(new EventPlaneSettings(Map.of(NatsSettings.NATS_SERVER,
          server.url(), NatsSettings.NATS_AUTH_CREDENTIALS_FILE, gone.toString())));
      Files.delete(gone);
      assertThatThrownBy(() -> NatsEventPlane.open(settings).close())
          .isInstanceOfSatisfying(EventPlaneException.class,
              e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.INVALID_ARGUMENT))
          .hasMessageContaining(gone.toString());

      try (EventPlane plane = open(server, good)) {
        assertThat(((NatsEventPlane) plane).stats().connected()).as("the good file still works").isTrue();
      }
    }
  }
}
