package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link RelayEngineConfig#fromEnvironment(Map)}: env names, "<NAME>: …" texts, scope resolution. */
class RelayEnvironmentTest {

  private static Map<String, String> env(String... kv) {
    Map<String, String> m = new HashMap<>();
    m.put("DYN_DC_ID", "dc-a");
    for (int i = 0; i < kv.length; i += 2) {
      if (kv[i + 1] == null) {
        m.remove(kv[i]);
      } else {
        m.put(kv[i], kv[i + 1]);
      }
    }
    return m;
  }

  private static List<RelayConfigViolation> violations(Map<String, String> env) {
    return catchThrowableOfType(RelayConfigException.class, () -> RelayEngineConfig.fromEnvironment(env))
        .violations();
  }

  @Test
  void minimalEnvironmentGivesTheDefaults() throws Exception {
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(env());
    assertThat(c.dcId().hex()).isEqualTo("04f110c98b1bfc48");
    assertThat(c.expectedUniqueBlocks()).isEqualTo(1_048_576);
    assertThat(c.scope().isWatchAll()).isTrue();
    assertThat(c.wanEnabled()).isFalse();
  }

  @Test
  void missingOrBlankDcIdIsRequired() {
    for (String blank : new String[] {null, "", "   "}) {
      assertThat(violations(env("DYN_DC_ID", blank))).singleElement().satisfies(v -> {
        assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.REQUIRED);
        assertThat(v.message()).isEqualTo("--dc-id or DYN_DC_ID is required");
      });
    }
  }

  @Test
  void dcIdWithSurroundingWhitespaceIsRejected() {
    assertThat(violations(env("DYN_DC_ID", " dc-a "))).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.SURROUNDING_WHITESPACE);
  }

  @Test
  void everyNumericKnobIsReadFromItsEnvName() throws Exception {
    Map<String, String> m = env("DYN_RELAY_BIND", "127.0.0.1:5561");
    for (RelayConfigKey key : RelayConfigKey.values()) {
      if (key.isNumeric()) {
        m.put(key.envName(), Long.toString(key.min() + 1));
      }
    }
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(m);
    for (RelayConfigKey key : RelayConfigKey.values()) {
      if (key.isNumeric()) {
        assertThat(c.value(key)).as(key.envName()).isEqualTo(key.min() + 1);
      }
    }
  }

  @Test
  void integersAreParsedLikePythonInt() throws Exception {
    assertThat(RelayEngineConfig.fromEnvironment(env("DYN_RELAY_PUBLICATION_THRESHOLD", " 0032 "))
        .publicationThreshold()).isEqualTo(32);
    assertThat(RelayEngineConfig.fromEnvironment(env("DYN_RELAY_PUBLICATION_THRESHOLD", "+1_000"))
        .publicationThreshold()).isEqualTo(1000);
    assertThat(RelayEngineConfig.fromEnvironment(env("DYN_RELAY_PUBLICATION_THRESHOLD", "\u0661\u0662"))
        .publicationThreshold()).isEqualTo(12); // Arabic-Indic digits, as Python accepts
  }

  @Test
  void nonIntegerHasTheNamePrefix() {
    for (String bad : new String[] {"", "abc", "1.5", "1__0", "_1", "1_", "0x10", "- 1", "+"}) {
      assertThat(violations(env("DYN_RELAY_PUBLICATION_THRESHOLD", bad))).as(bad).singleElement().satisfies(v -> {
        assertThat(v.key()).isEqualTo(RelayConfigKey.PUBLICATION_THRESHOLD);
        assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.NOT_AN_INTEGER);
        assertThat(v.message()).startsWith("DYN_RELAY_PUBLICATION_THRESHOLD: ");
      });
    }
  }

  @Test
  void zeroAndNegativeAreNotPositive() {
    for (String bad : new String[] {"0", "-1", "-0", "-99999999999999999999999"}) {
      assertThat(violations(env("DYN_RELAY_PUBLICATION_DELAY_MS", bad))).as(bad).singleElement().satisfies(v -> {
        assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.NOT_POSITIVE);
        assertThat(v.message()).isEqualTo("DYN_RELAY_PUBLICATION_DELAY_MS: must be positive");
      });
    }
  }

  @Test
  void u64MaxTimerFromEnvironmentIsRejectedAndBeyondU64Too() {
    for (String big : new String[] {"18446744073709551615", "18446744073709551616", "31536000001"}) {
      assertThat(violations(env("DYN_RELAY_RECOVERY_ATTEMPT_TIMEOUT_MS", big))).as(big)
          .extracting(RelayConfigViolation::reason).containsExactly(RelayConfigViolation.Reason.ABOVE_MAXIMUM);
    }
  }

  @Test
  void timer31536000000MsFromEnvironmentIsAccepted() throws Exception {
    assertThat(RelayEngineConfig.fromEnvironment(env("DYN_RELAY_BIND", "127.0.0.1:5561",
        "DYN_RELAY_KEEPALIVE_INTERVAL_MS", "31536000000")).value(RelayConfigKey.KEEPALIVE_INTERVAL_MS))
        .isEqualTo(31_536_000_000L);
  }

  @Test
  void boundsMessagesUseTheEnvName() {
    assertThat(violations(env("DYN_RELAY_BIND", "127.0.0.1:1", "DYN_RELAY_MAX_MESSAGE_BYTES", "4194368")))
        .extracting(RelayConfigViolation::message)
        .containsExactly("DYN_RELAY_MAX_MESSAGE_BYTES: must be at least 4259904");
    assertThat(violations(env("DYN_RELAY_BIND", "127.0.0.1:1", "DYN_RELAY_LOAD_FANOUT_CAPACITY", "65537")))
        .extracting(RelayConfigViolation::message)
        .containsExactly("DYN_RELAY_LOAD_FANOUT_CAPACITY: must be at most 65536, got 65537");
  }

  @Test
  void wanOnlyVariableWithoutBindHasTheLauncherMessage() {
    for (RelayConfigKey key : RelayConfigKey.values()) {
      if (key.isWanOnly()) {
        assertThat(violations(env(key.envName(), Long.toString(key.defaultValue())))).as(key.envName())
            .singleElement().satisfies(v -> {
              assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.REQUIRES_BIND);
              assertThat(v.message()).isEqualTo(key.envName() + " requires --bind or DYN_RELAY_BIND");
            });
      }
    }
  }

  @Test
  void wanOnlyVariableThatIsAlsoMalformedReportsBoth() {
    assertThat(violations(env("DYN_RELAY_MAX_LOAD_SUBSCRIBERS", "x"))).extracting(RelayConfigViolation::reason)
        .containsExactlyInAnyOrder(RelayConfigViolation.Reason.REQUIRES_BIND,
            RelayConfigViolation.Reason.NOT_AN_INTEGER);
  }

  @Test
  void producerVariablesWorkWithoutBind() throws Exception {
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(env("DYN_RELAY_PUBLICATION_THRESHOLD", "8",
        "DYN_RELAY_PUBLICATION_DELAY_MS", "5", "DYN_RELAY_RECOVERY_ATTEMPT_TIMEOUT_MS", "1000",
        "DYN_RELAY_EXPECTED_UNIQUE_BLOCKS", "16"));
    assertThat(c.publicationThreshold()).isEqualTo(8);
    assertThat(c.publicationDelayMs()).isEqualTo(5);
    assertThat(c.recoveryAttemptTimeoutMs()).isEqualTo(1000);
    assertThat(c.bucketCount()).isEqualTo(8);
  }

  @Test
  void unknownRelayVariablesAreIgnored() throws Exception {
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(env("DYN_RELAY_MAX_POOL_SUBSCRIBERS", "junk",
        "DYN_RELAY_PUBLICATON_THRESHOLD", "0"));
    assertThat(c.publicationThreshold()).isEqualTo(16);
  }

  @Test
  void bindIsParsedAndInvalidBindHasTheUpstreamMessage() throws Exception {
    assertThat(RelayEngineConfig.fromEnvironment(env("DYN_RELAY_BIND", "[::1]:5561")).bind().orElseThrow().text())
        .isEqualTo("[::1]:5561");
    assertThat(violations(env("DYN_RELAY_BIND", "relay.example:5561"))).extracting(RelayConfigViolation::message)
        .containsExactly("invalid KV DC Relay bind address");
    assertThat(violations(env("DYN_RELAY_BIND", " "))).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.BLANK);
  }

  // ---- scope resolution (producer.md §7.1 step 2/3) ----

  @Test
  void namespacesCsvIsSplitAndStripped() throws Exception {
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(env("DYN_RELAY_NAMESPACES", " b , a"));
    assertThat(c.scope().isWatchAll()).isFalse();
    assertThat(c.scope().namespaces()).containsExactly("a", "b");
  }

  @Test
  void namespacesCsvRejectsEmptyItemsAndDuplicates() {
    assertThat(violations(env("DYN_RELAY_NAMESPACES", "a,,b"))).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.BLANK);
    assertThat(violations(env("DYN_RELAY_NAMESPACES", ""))).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.BLANK);
    assertThat(violations(env("DYN_RELAY_NAMESPACES", "a, a"))).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.INVALID_SCOPE);
  }

  @Test
  void namespacesWithTrueWatchAllIsAnError() {
    assertThat(violations(env("DYN_RELAY_NAMESPACES", "a", "DYN_RELAY_WATCH_ALL", "yes")))
        .extracting(RelayConfigViolation::reason).containsExactly(RelayConfigViolation.Reason.INVALID_SCOPE);
  }

  @Test
  void namespacesWithFalseWatchAllIsTheAllowlist() throws Exception {
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(env("DYN_RELAY_NAMESPACES", "a",
        "DYN_RELAY_WATCH_ALL", "off"));
    assertThat(c.scope().isWatchAll()).isFalse();
    assertThat(c.scope().namespaces()).containsExactly("a");
  }

  @Test
  void watchAllFalseWithoutNamespacesHasTheLauncherMessage() {
    assertThat(violations(env("DYN_RELAY_WATCH_ALL", "false"))).extracting(RelayConfigViolation::message)
        .containsExactly("DYN_RELAY_WATCH_ALL=false requires DYN_RELAY_NAMESPACES");
  }

  @Test
  void booleansFollowTheLauncherRules() throws Exception {
    for (String t : new String[] {"1", "true", " TRUE ", "Yes", "on"}) {
      assertThat(RelayEngineConfig.fromEnvironment(env("DYN_RELAY_WATCH_ALL", t)).scope().isWatchAll()).isTrue();
    }
    for (String f : new String[] {"0", "false", "No", " OFF"}) {
      assertThat(violations(env("DYN_RELAY_WATCH_ALL", f))).as(f).extracting(RelayConfigViolation::message)
          .containsExactly("DYN_RELAY_WATCH_ALL=false requires DYN_RELAY_NAMESPACES");
    }
    for (String bad : new String[] {"", "2", "y", "enabled"}) {
      assertThat(violations(env("DYN_RELAY_WATCH_ALL", bad))).as(bad).singleElement().satisfies(v -> {
        assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.NOT_A_BOOLEAN);
        assertThat(v.message()).isEqualTo("DYN_RELAY_WATCH_ALL must be a boolean value");
      });
    }
  }

  @Test
  void endpointPrefixesCsvWithAllowlist() throws Exception {
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(env("DYN_RELAY_NAMESPACES", "prod-a",
        "DYN_RELAY_ENDPOINT_PREFIXES", "prod-a.backend, prod-a.frontend"));
    assertThat(c.scope().endpointPrefixes()).containsExactly("prod-a.backend", "prod-a.frontend");
    assertThat(violations(env("DYN_RELAY_NAMESPACES", "prod-a", "DYN_RELAY_ENDPOINT_PREFIXES", "prod-b.x")))
        .extracting(RelayConfigViolation::message)
        .containsExactly("endpoint prefix prod-b.x is outside the configured namespaces");
  }

  @Test
  void severalBadVariablesAreAllReported() {
    assertThat(violations(env("DYN_DC_ID", null, "DYN_RELAY_PUBLICATION_THRESHOLD", "0",
        "DYN_RELAY_WATCH_ALL", "maybe", "DYN_RELAY_BIND", "nope")))
        .extracting(RelayConfigViolation::key).containsExactly(RelayConfigKey.DC_ID, RelayConfigKey.WATCH_ALL,
            RelayConfigKey.BIND, RelayConfigKey.PUBLICATION_THRESHOLD);
  }
}
