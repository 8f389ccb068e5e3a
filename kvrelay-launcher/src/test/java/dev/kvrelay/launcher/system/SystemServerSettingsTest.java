package dev.kvrelay.launcher.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SystemServerSettingsTest {

  @Test
  void absentVariablesGiveUpstreamDefaultsWithTheServerDisabled() throws Exception {
    SystemServerSettings s = SystemServerSettings.fromEnvironment(Map.of());
    assertThat(s).isEqualTo(new SystemServerSettings(-1, "0.0.0.0", "/health", "/live"));
    assertThat(s.enabled()).isFalse();
    assertThat(SystemServerSettings.defaults()).isEqualTo(s);
  }

  @Test
  void portMinusOneDisablesZeroIsRandomPositiveBinds() throws Exception {
    assertThat(SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_PORT", "-1")).enabled()).isFalse();
    SystemServerSettings zero = SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_PORT", "0"));
    assertThat(zero.enabled()).isTrue();
    assertThat(zero.port()).isZero();
    assertThat(SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_PORT", "8081")).port()).isEqualTo(8081);
    assertThat(SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_PORT", "65535")).port()).isEqualTo(65535);
  }

  @Test
  void everyVariableIsRead() throws Exception {
    SystemServerSettings s = SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_PORT", "9090",
        "DYN_SYSTEM_HOST", "127.0.0.1", "DYN_SYSTEM_HEALTH_PATH", "/healthz", "DYN_SYSTEM_LIVE_PATH", "/livez"));
    assertThat(s).isEqualTo(new SystemServerSettings(9090, "127.0.0.1", "/healthz", "/livez"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"http", "", " ", "-2", "65536", "80.5", "0x50", "99999999999"})
  void badPortIsRejectedNamingTheVariableAndValue(String value) {
    assertThatThrownBy(() -> SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_PORT", value)))
        .isInstanceOf(SystemSettingsException.class)
        .satisfies(e -> assertThat(((SystemSettingsException) e).variable()).isEqualTo("DYN_SYSTEM_PORT"))
        .hasMessageStartingWith("DYN_SYSTEM_PORT must be an integer in -1..65535 (-1 disables the system server), got '");
  }

  @Test
  void portMessageIsExact() {
    assertThatThrownBy(() -> SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_PORT", "http")))
        .hasMessage("DYN_SYSTEM_PORT must be an integer in -1..65535 (-1 disables the system server), got 'http'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  ", "local host", " 127.0.0.1"})
  void badHostIsRejected(String value) {
    assertThatThrownBy(() -> SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_HOST", value)))
        .isInstanceOf(SystemSettingsException.class)
        .hasMessage("DYN_SYSTEM_HOST must be a host name or IP address without white space, got '" + value + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"health", "", "/he alth", "/health?x=1", "/h#x"})
  void relativeOrMalformedHealthPathIsRejected(String value) {
    assertThatThrownBy(() -> SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_HEALTH_PATH", value)))
        .isInstanceOf(SystemSettingsException.class)
        .hasMessage("DYN_SYSTEM_HEALTH_PATH must be an absolute URL path starting with '/' (no white space, '?' or"
            + " '#'), got '" + value + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/metrics", "/engine", "/engine/state", "/engine/x"})
  void livePathMayNotShadowTheOtherRoutes(String value) {
    assertThatThrownBy(() -> SystemServerSettings.fromEnvironment(Map.of("DYN_SYSTEM_LIVE_PATH", value)))
        .isInstanceOf(SystemSettingsException.class)
        .satisfies(e -> assertThat(((SystemSettingsException) e).variable()).isEqualTo("DYN_SYSTEM_LIVE_PATH"))
        .hasMessage("DYN_SYSTEM_LIVE_PATH must not shadow the system server's /metrics or /engine/* routes, got '"
            + value + "'");
  }

  @Test
  void theConstructorAppliesTheSameRules() {
    assertThatThrownBy(() -> new SystemServerSettings(-5, "0.0.0.0", "/health", "/live"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("DYN_SYSTEM_PORT must be an integer in -1..65535 (-1 disables the system server), got '-5'");
  }
}
