package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Path prefixes (runtime-inputs.md §1.4) and subjects (§5.3) of the three event scopes. */
class EventScopeTest {

  @Test
  void subjectExampleOf53() {
    assertThat(EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate")).subject("kv-events"))
        .isEqualTo("namespace.dynamo.component.backend.endpoint.generate.kv-events");
  }

  @Test
  void subjectsOfTheThreeScopes() {
    assertThat(EventScope.namespace("dynamo").subject("kv_metrics")).isEqualTo("namespace.dynamo.kv_metrics");
    assertThat(EventScope.component("dynamo", "backend").subject("kv-events"))
        .isEqualTo("namespace.dynamo.component.backend.kv-events");
    assertThat(EventScope.endpoint(new DynamoEndpointId("prod.a", "back/end", "gen")).subject("kv.events"))
        .isEqualTo("namespace.prod%2Ea.component.back%2Fend.endpoint.gen.kv%2Eevents");
  }

  @Test
  void subjectPrefixesOfTheThreeScopes() {
    assertThat(new EventScope.Namespace("ns.a/b").subjectPrefix()).isEqualTo("namespace.ns%2Ea%2Fb");
    assertThat(new EventScope.Component("dynamo", "back end").subjectPrefix())
        .isEqualTo("namespace.dynamo.component.back%20end");
    assertThat(new EventScope.Endpoint(new DynamoEndpointId("d", "c", "gen.v2")).subjectPrefix())
        .isEqualTo("namespace.d.component.c.endpoint.gen%2Ev2");
  }

  @Test
  void pathPrefixesOfTheThreeScopes() {
    assertThat(new EventScope.Namespace("ns.a/b").path()).isEqualTo("namespace/ns%2Ea%2Fb");
    assertThat(new EventScope.Component("dynamo", "back end").path()).isEqualTo("namespace/dynamo/component/back%20end");
    assertThat(new EventScope.Endpoint(new DynamoEndpointId("dynamo", "backend", "generate")).path())
        .isEqualTo("namespace/dynamo/component/backend/endpoint/generate");
    assertThat(new EventScope.Endpoint(new DynamoEndpointId("d", "c", "gen.v2")).path())
        .isEqualTo("namespace/d/component/c/endpoint/gen%2Ev2");
  }

  @Test
  void namespaceOfEveryScope() {
    assertThat(EventScope.namespace("n").namespace()).isEqualTo("n");
    assertThat(EventScope.component("n", "c").namespace()).isEqualTo("n");
    assertThat(EventScope.endpoint(new DynamoEndpointId("n", "c", "e")).namespace()).isEqualTo("n");
  }

  @Test
  void factoriesBuildTheRecords() {
    assertThat(EventScope.namespace("n")).isEqualTo(new EventScope.Namespace("n"));
    assertThat(EventScope.component("n", "c")).isEqualTo(new EventScope.Component("n", "c"));
    DynamoEndpointId ep = new DynamoEndpointId("n", "c", "e");
    assertThat(EventScope.endpoint(ep)).isEqualTo(new EventScope.Endpoint(ep));
  }

  @Test
  void dottedNamesThatCollideAsTextHaveDistinctSubjectsAndPaths() {
    EventScope a = EventScope.endpoint(new DynamoEndpointId("a.b", "c", "d"));
    EventScope b = EventScope.endpoint(new DynamoEndpointId("a", "b.c", "d"));
    assertThat(a.subject("t")).isNotEqualTo(b.subject("t"));
    assertThat(a.path()).isNotEqualTo(b.path());
  }

  @Test
  void emptyOrIllFormedScopePartsAreRejected() {
    assertThatThrownBy(() -> EventScope.namespace("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EventScope.component("ns", "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EventScope.component("", "c")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EventScope.Namespace("a\uD83D")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EventScope.Component("n", "\uDE00")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EventScope.namespace("n").subject("t\uD83D")).isInstanceOf(IllegalArgumentException.class);
  }
}
