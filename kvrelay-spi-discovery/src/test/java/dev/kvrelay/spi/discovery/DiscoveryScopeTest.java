package dev.kvrelay.spi.discovery;

import static dev.kvrelay.spi.discovery.TestRecords.ep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.EventScope;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** producer.md §8.1 scope rules and the vectors.md §10.2 endpoint-prefix rows. */
class DiscoveryScopeTest {

  @ParameterizedTest(name = "{0} vs {1}.{2}.{3} → {4}")
  @CsvSource({
    // vectors.md §10.2
    "prod-a.backend, prod-a, backend, generate, true",
    "prod-a.backend, prod-a, backend2, generate, false",
    "production.back, production, backend, generate, false",
    // whole segments, 1–3 of them; more never match
    "prod-a, prod-a, backend, generate, true",
    "prod-a.backend.generate, prod-a, backend, generate, true",
    "prod-a.backend.gen, prod-a, backend, generate, false",
    "prod-a.backend.generate.x, prod-a, backend, generate, false",
    "prod, prod-a, backend, generate, false",
  })
  void endpointPrefixMatchesWholeSegments(String prefix, String ns, String comp, String endpoint, boolean matches)
      throws Exception {
    DiscoveryScope scope = DiscoveryScope.watchAll(List.of(prefix));
    assertThat(scope.matchesEndpoint(ep(ns, comp, endpoint))).isEqualTo(matches);
    assertThat(scope.matches(new EndpointKey(ep(ns, comp, endpoint), 1))).isEqualTo(matches);
    assertThat(scope.matches(new ModelKey(ep(ns, comp, endpoint), 1, "s"))).isEqualTo(matches);
    assertThat(scope.matches(new EventSourceKey(new EventScope.Endpoint(ep(ns, comp, endpoint)), "kv-events", 1)))
        .isEqualTo(matches);
  }

  @Test
  void anyOfSeveralPrefixesMatches() throws Exception {
    DiscoveryScope scope = DiscoveryScope.namespaces(List.of("a", "b"), List.of("a.x", "b.y.z"));
    assertThat(scope.matchesEndpoint(ep("a", "x", "e"))).isTrue();
    assertThat(scope.matchesEndpoint(ep("b", "y", "z"))).isTrue();
    assertThat(scope.matchesEndpoint(ep("b", "y", "w"))).isFalse();
    assertThat(scope.matchesEndpoint(ep("a", "y", "e"))).isFalse();
  }

  @Test
  void namespacesMatchExactly() throws Exception {
    DiscoveryScope scope = DiscoveryScope.namespaces(List.of("team-a"));
    assertThat(scope.matchesNamespace("team-a")).isTrue();
    assertThat(scope.matchesNamespace("team-a2")).isFalse();
    assertThat(scope.matchesNamespace("team")).isFalse();
    assertThat(scope.matches(new EndpointKey(ep("team-a2", "c", "e"), 1))).isFalse();
    assertThat(scope.matches(new EventChannelKey(new EventScope.Namespace("team-a"), "kv_metrics", 1))).isTrue();
    assertThat(DiscoveryScope.watchAll().matchesNamespace("anything")).isTrue();
  }

  @Test
  void shallowEventScopesMatchWhenTheirPartsAgree() throws Exception {
    DiscoveryScope scope = DiscoveryScope.namespaces(List.of("prod-a"), List.of("prod-a.backend"));
    assertThat(scope.matches(new EventChannelKey(new EventScope.Namespace("prod-a"), "kv-events", 1))).isTrue();
    assertThat(scope.matches(new EventChannelKey(new EventScope.Component("prod-a", "backend"), "kv-events", 1))).isTrue();
    assertThat(scope.matches(new EventChannelKey(new EventScope.Component("prod-a", "backend2"), "kv-events", 1))).isFalse();
  }

  @Test
  void noPrefixMeansEverythingInTheNamespaces() throws Exception {
    DiscoveryScope scope = DiscoveryScope.namespaces(List.of("b", "a"));
    assertThat(scope.namespaces()).containsExactly("a", "b");
    assertThat(scope.endpointPrefixes()).isEmpty();
    assertThat(scope.isWatchAll()).isFalse();
    assertThat(scope.matchesEndpoint(ep("a", "anything", "x"))).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "no namespace                 | ''              | ''                  | discovery needs at least one namespace unless watch_all is set",
    "blank namespace              | ' '             | ''                  | namespace must not be blank",
    "padded namespace             | ' a'            | ''                  | namespace ' a' must not have leading or trailing whitespace",
    "repeated namespace           | a,a             | ''                  | namespace 'a' is repeated",
    "prefix outside namespaces    | a               | b.x                 | endpoint prefix b.x is outside the configured namespaces",
    "prefix sharing a text prefix | a               | ab.x                | endpoint prefix ab.x is outside the configured namespaces",
    "blank prefix                 | a               | ' '                 | endpoint prefix must not be blank",
    "padded prefix                | a               | 'a.x '              | endpoint prefix 'a.x ' must not have leading or trailing whitespace",
    "repeated prefix              | a               | a.x,a.x             | endpoint prefix 'a.x' is repeated",
  })
  void invalidScopesAreConfigurationErrors(String name, String namespaces, String prefixes, String message) {
    List<String> ns = namespaces.isEmpty() ? List.of() : List.of(namespaces.split(",", -1));
    List<String> px = prefixes.isEmpty() ? List.of() : List.of(prefixes.split(",", -1));
    DiscoveryException e = catchThrowableOfType(DiscoveryException.class, () -> DiscoveryScope.namespaces(ns, px));
    assertThat(e).as(name).isNotNull();
    assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION);
    assertThat(e.getMessage()).isEqualTo(message);
  }

  @Test
  void watchAllAcceptsAnyValidPrefixAndChecksTheRest() throws Exception {
    assertThat(DiscoveryScope.watchAll(List.of("anything.at.all")).endpointPrefixes()).containsExactly("anything.at.all");
    assertThat(catchThrowableOfType(DiscoveryException.class, () -> DiscoveryScope.watchAll(List.of("x", "x")))).isNotNull();
    assertThat(DiscoveryScope.watchAll(List.of("a.b"))).isEqualTo(DiscoveryScope.watchAll(List.of("a.b")));
    assertThat(DiscoveryScope.watchAll().toString()).isEqualTo("watch-all");
  }
}
