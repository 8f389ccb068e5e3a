package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import io.nats.client.NKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NATS_SERVER and NATS_AUTH_* parsing (upstream defaults and priority), the backoff, and typed refusals. */
class NatsSettingsTest {
  @TempDir Path dir;

  private static NatsSettings from(String... nameValues) throws EventPlaneException {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < nameValues.length; i += 2) {
      m.put(nameValues[i], nameValues[i + 1]);
    }
    return NatsSettings.from(new EventPlaneSettings(m));
  }

  private static void assertInvalid(String message, String... nameValues) {
    assertThatThrownBy(() -> from(nameValues))
        .isInstanceOfSatisfying(EventPlaneException.class,
            e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.INVALID_ARGUMENT))
        .hasMessageContaining(message);
  }

  @Test
  void upstreamDefaults() throws Exception {
    NatsSettings s = from();
    assertThat(s.servers()).containsExactly("nats://localhost:4222");
    assertThat(s.auth()).isEqualTo(new NatsAuth.UserPassword("user", "user"));
    assertThat(from(NatsSettings.NATS_SERVER, "  ", NatsSettings.NATS_AUTH_TOKEN, "").auth())
        .as("blank values count as unset").isEqualTo(NatsSettings.DEFAULT_AUTH);
  }

  @Test
  void serversAreNatsUrlsSeparatedByCommas() throws Exception {
    assertThat(from(NatsSettings.NATS_SERVER, "nats://a:4222, nats://b:4333").servers())
        .containsExactly("nats://a:4222", "nats://b:4333");
    assertInvalid("NATS_SERVER must list nats://host:port URLs", NatsSettings.NATS_SERVER, "tls://a:4222");
    assertInvalid("NATS_SERVER", NatsSettings.NATS_SERVER, "a:4222");
    assertInvalid("NATS_SERVER", NatsSettings.NATS_SERVER, "nats://a:4222,");
  }

  @Test
  void authPriorityIsUserPasswordThenTokenThenNkeyThenCredentialsFile() throws Exception {
    String seed = new String(NKey.createUser(new SecureRandom()).getSeed());
    Path creds = Files.writeString(dir.resolve("u.creds"), "x");
    String[] all = {NatsSettings.NATS_AUTH_USERNAME, "u", NatsSettings.NATS_AUTH_PASSWORD, "p",
        NatsSettings.NATS_AUTH_TOKEN, "t", NatsSettings.NATS_AUTH_NKEY, seed,
        NatsSettings.NATS_AUTH_CREDENTIALS_FILE, creds.toString()};
    assertThat(from(all).auth()).isEqualTo(new NatsAuth.UserPassword("u", "p"));
    assertThat(from(java.util.Arrays.copyOfRange(all, 4, 10)).auth()).isEqualTo(new NatsAuth.Token("t"));
    assertThat(from(java.util.Arrays.copyOfRange(all, 6, 10)).auth()).isEqualTo(new NatsAuth.NKeySeed(seed));
    assertThat(from(java.util.Arrays.copyOfRange(all, 8, 10)).auth()).isEqualTo(new NatsAuth.CredentialsFile(creds));
  }

  @Test
  void badCredentialsAreRefusedWithTheirName() throws Exception {
    assertInvalid("NATS_AUTH_USERNAME and NATS_AUTH_PASSWORD must be set together (only NATS_AUTH_USERNAME",
        NatsSettings.NATS_AUTH_USERNAME, "u", NatsSettings.NATS_AUTH_TOKEN, "t");
    assertInvalid("only NATS_AUTH_PASSWORD", NatsSettings.NATS_AUTH_PASSWORD, "p");
    assertInvalid("NATS_AUTH_NKEY is not a valid NKey seed", NatsSettings.NATS_AUTH_NKEY, "SUnotaseed");
    String accountSeed = new String(NKey.createAccount(new SecureRandom()).getSeed());
    assertInvalid("NATS_AUTH_NKEY must be a user NKey seed", NatsSettings.NATS_AUTH_NKEY, accountSeed);
    assertInvalid("is not a readable file", NatsSettings.NATS_AUTH_CREDENTIALS_FILE, dir.resolve("none").toString());
    assertInvalid("is not a readable file", NatsSettings.NATS_AUTH_CREDENTIALS_FILE, dir.toString());
  }

  @Test
  void secretsStayOutOfToString() throws Exception {
    assertThat(new NatsAuth.UserPassword("u", "hunter2").toString()).doesNotContain("hunter2").contains("u");
    assertThat(new NatsAuth.Token("hunter2").toString()).doesNotContain("hunter2");
    assertThat(new NatsAuth.NKeySeed("SUhunter2").toString()).doesNotContain("hunter2");
    assertThat(from(NatsSettings.NATS_AUTH_TOKEN, "hunter2").toString()).doesNotContain("hunter2");
  }

  @Test
  void reconnectBackoffDoublesFromTheInitialWaitUpToTheMaximum() {
    NatsSettings s = NatsSettings.of(List.of("nats://x:1"), NatsSettings.DEFAULT_AUTH);
    assertThat(List.of(s.reconnectWait(1), s.reconnectWait(2), s.reconnectWait(3), s.reconnectWait(6),
        s.reconnectWait(7), s.reconnectWait(1_000), s.reconnectWait(Long.MAX_VALUE)))
        .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400),
            Duration.ofMillis(3_200), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5));
    assertThat(s.reconnectWait(0)).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void tuningIsValidated() {
    NatsSettings s = NatsSettings.of(List.of("nats://x:1"), NatsSettings.DEFAULT_AUTH);
    assertThatThrownBy(() -> s.withPendingLimits(0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.withReconnectWait(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> NatsSettings.of(List.of(), NatsSettings.DEFAULT_AUTH))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
