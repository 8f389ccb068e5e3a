package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import org.junit.jupiter.api.Test;

/** Subjects and segment encoding (runtime-inputs.md §1.3, §5.3). */
class EventSubjectsTest {

  @Test
  void specSegmentExample() {
    assertThat(EventSubjects.encodeSegment("ns.a/b")).isEqualTo("ns%2Ea%2Fb");
  }

  @Test
  void unreservedBytesPassAndEveryOtherUtf8ByteIsUppercaseHex() {
    assertThat(EventSubjects.encodeSegment("AZaz09_-")).isEqualTo("AZaz09_-");
    assertThat(EventSubjects.encodeSegment("a b%é*~")).isEqualTo("a%20b%25%C3%A9%2A%7E");
    assertThat(EventSubjects.encodeSegment("")).isEmpty();
  }

  @Test
  void subjectsOfTheThreeScopes() {
    assertThat(EventSubjects.subject(EventScope.namespace("dynamo"), "kv_metrics"))
        .isEqualTo("namespace.dynamo.kv_metrics");
    assertThat(EventSubjects.subject(EventScope.component("dynamo", "backend"), "kv-events"))
        .isEqualTo("namespace.dynamo.component.backend.kv-events");
    assertThat(EventSubjects.subject(
            EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate")), "kv-events"))
        .isEqualTo("namespace.dynamo.component.backend.endpoint.generate.kv-events");
    assertThat(EventSubjects.subject(
            EventScope.endpoint(new DynamoEndpointId("prod.a", "back/end", "gen")), "kv.events"))
        .isEqualTo("namespace.prod%2Ea.component.back%2Fend.endpoint.gen.kv%2Eevents");
  }

  @Test
  void dottedNamesThatCollideAsTextHaveDistinctSubjects() {
    assertThat(EventSubjects.subject(EventScope.endpoint(new DynamoEndpointId("a.b", "c", "d")), "t"))
        .isNotEqualTo(EventSubjects.subject(EventScope.endpoint(new DynamoEndpointId("a", "b.c", "d")), "t"));
  }

  @Test
  void emptyScopePartsAreRejected() {
    assertThatThrownBy(() -> EventScope.namespace("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EventScope.component("ns", "")).isInstanceOf(IllegalArgumentException.class);
  }
}
