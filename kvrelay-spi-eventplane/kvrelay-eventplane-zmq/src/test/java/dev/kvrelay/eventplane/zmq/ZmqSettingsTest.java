package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The environment rules of runtime-inputs §5.1 / §9 and upstream's {@code parse_broker_url}. */
class ZmqSettingsTest {

  private static ZmqSettings of(Map<String, String> env) throws EventPlaneException {
    return ZmqSettings.from(new EventPlaneSettings(env));
  }

  private static void assertInvalid(Map<String, String> env, String mentions) {
    assertThatThrownBy(() -> of(env)).isInstanceOfSatisfying(EventPlaneException.class, e -> {
      assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.INVALID_ARGUMENT);
      assertThat(e.getMessage()).contains(mentions);
    });
  }

  @Test
  void defaultsAreDirectModeWithFourIoThreads() throws Exception {
    ZmqSettings s = of(Map.of());
    assertThat(s.mode()).isEqualTo(ZmqSettings.Mode.DIRECT);
    assertThat(s.ioThreads()).isEqualTo(4);
    assertThat(s.brokered()).isFalse();
    assertThat(of(Map.of(ZmqSettings.IO_THREADS, " 7 ")).ioThreads()).isEqualTo(7);
    assertThat(of(Map.of(ZmqSettings.IO_THREADS, "")).ioThreads()).isEqualTo(4);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "four", "1.5", "99999999999"})
  void ioThreadsMustBeAPositiveInteger(String v) {
    assertInvalid(Map.of(ZmqSettings.IO_THREADS, v), ZmqSettings.IO_THREADS);
  }

  @Test
  void brokerUrlInUpstreamsFormat() throws Exception {
    ZmqSettings s = of(Map.of(ZmqSettings.BROKER_URL,
        "xsub=tcp://h1:5555;tcp://h2:5555 , xpub=tcp://h1:5556; tcp://h2:5556;"));
    assertThat(s.mode()).isEqualTo(ZmqSettings.Mode.BROKER_URL);
    assertThat(s.xsubEndpoints()).containsExactly("tcp://h1:5555", "tcp://h2:5555");
    assertThat(s.xpubEndpoints()).containsExactly("tcp://h1:5556", "tcp://h2:5556");
    ZmqSettings swapped = of(Map.of(ZmqSettings.BROKER_URL, "xpub=tcp://b:2,xsub=tcp://a:1"));
    assertThat(swapped.xsubEndpoints()).containsExactly("tcp://a:1");
    assertThat(swapped.xpubEndpoints()).containsExactly("tcp://b:2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "xsub=tcp://a:1", "xsub=tcp://a:1 , xpub=tcp://b:2 , xpub=tcp://c:3",
      "xsub=tcp://a:1 , pub=tcp://b:2", "xsub= ; , xpub=tcp://b:2", "xsub=tcp://a:1 , xpub=",
      "xsub=tcp://a:1 , xpub=tcp://b"})
  void malformedBrokerUrlsAreRefused(String url) {
    assertInvalid(Map.of(ZmqSettings.BROKER_URL, url), ZmqSettings.BROKER_URL);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "true", "TRUE", "on", "Yes"})
  void brokerEnabledTruthyMeansDiscoveredBrokers(String v) throws Exception {
    ZmqSettings s = of(Map.of(ZmqSettings.BROKER_ENABLED, v));
    assertThat(s.mode()).isEqualTo(ZmqSettings.Mode.BROKER_DISCOVERED);
    assertThat(s.brokered()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "false", "off", "no", "", "2"})
  void brokerEnabledOtherwiseMeansDirect(String v) throws Exception {
    assertThat(of(Map.of(ZmqSettings.BROKER_ENABLED, v)).mode()).isEqualTo(ZmqSettings.Mode.DIRECT);
  }

  @Test
  void anExplicitBrokerUrlWinsOverDiscovery() throws Exception {
    ZmqSettings s = of(Map.of(ZmqSettings.BROKER_ENABLED, "1", ZmqSettings.BROKER_URL, "xsub=tcp://a:1,xpub=tcp://b:2"));
    assertThat(s.mode()).isEqualTo(ZmqSettings.Mode.BROKER_URL);
  }

  @Test
  void recordRefusesInconsistentValues() {
    assertThatThrownBy(() -> ZmqSettings.direct(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ZmqSettings.broker(1, List.of(), List.of("tcp://b:2")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp://127.0.0.1:5555", "tcp://host.example:1", "tcp://[::1]:65535", "ipc:///tmp/x",
      "inproc://a"})
  void connectableEndpoints(String e) {
    assertThat(ZmqEndpoints.problem(e)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "udp://h:1", "tcp://", "tcp://h", "tcp://:5", "tcp://h:0", "tcp://h:70000",
      "tcp://h:12a", "tcp://::1:5", "tcp://[::1:5", "tcp://*:5", "ipc://"})
  void malformedEndpoints(String e) {
    assertThat(ZmqEndpoints.problem(e)).isNotNull();
  }
}
