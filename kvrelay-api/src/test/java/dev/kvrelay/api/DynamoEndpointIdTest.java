package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** wan-grpc.md §1.5 DynamoEndpointId; producer.md §1.3 endpoint path form. */
class DynamoEndpointIdTest {

  @Test
  void parsesThePathForm() throws Exception {
    DynamoEndpointId id = DynamoEndpointId.parse("prod/router/generate");
    assertThat(id).isEqualTo(new DynamoEndpointId("prod", "router", "generate"));
    assertThat(id.path()).isEqualTo("prod/router/generate");
    assertThat(id.dottedName()).isEqualTo("prod.router.generate");
    assertThat(id.toString()).isEqualTo("prod/router/generate");
  }

  @ParameterizedTest(name = "''{0}'' is malformed")
  @ValueSource(strings = {"", "prod", "prod/router", "prod/router/generate/x", "/router/generate", "prod//generate",
    "prod/router/", "prod/ router/generate", "prod.router.generate"})
  void rejectsBadPaths(String path) {
    WireValidationException e =
        catchThrowableOfType(WireValidationException.class, () -> DynamoEndpointId.parse(path));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
  }

  @Test
  void dottedComponentsStayDistinct_compareAsTuples() {
    DynamoEndpointId a = new DynamoEndpointId("prod-a.backend", "x", "generate");
    DynamoEndpointId b = new DynamoEndpointId("prod-a", "backend.x", "generate");
    assertThat(a.dottedName()).isEqualTo(b.dottedName());
    assertThat(a).isNotEqualTo(b);
    assertThat(a.compareTo(b)).isNotZero();
    assertThat(Integer.signum(a.compareTo(b))).isEqualTo(-Integer.signum(b.compareTo(a)));
  }

  @Test
  void ordersByNamespaceThenComponentThenEndpoint() {
    assertThat(new DynamoEndpointId("a", "z", "z")).isLessThan(new DynamoEndpointId("b", "a", "a"));
    assertThat(new DynamoEndpointId("a", "a", "z")).isLessThan(new DynamoEndpointId("a", "b", "a"));
    assertThat(new DynamoEndpointId("a", "a", "a")).isLessThan(new DynamoEndpointId("a", "a", "b"));
    // Code-point (UTF-8) order: U+FFFD sorts before U+1F600.
    assertThat(new DynamoEndpointId("\uFFFD", "c", "e")).isLessThan(new DynamoEndpointId("\uD83D\uDE00", "c", "e"));
  }

  @Test
  void trustedConstructorRejectsInvalidText() {
    assertThatThrownBy(() -> new DynamoEndpointId("", "c", "e")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DynamoEndpointId("n", "c ", "e")).isInstanceOf(IllegalArgumentException.class);
  }
}
