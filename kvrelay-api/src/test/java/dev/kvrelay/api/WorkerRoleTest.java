package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** runtime-inputs.md §4.1: card worker_type parsing; producer pool-role checks. */
class WorkerRoleTest {

  @ParameterizedTest(name = "worker_type ''{0}'' -> {1}")
  @CsvSource(delimiter = ';', value = {
    "prefill; PREFILL",
    "decode; DECODE",
    "encode; ENCODE",
    "aggregated; AGGREGATED",
    "prefill|decode; AGGREGATED",
    "decode|prefill; AGGREGATED",
    "Prefill; PREFILL",
    "DECODE; DECODE",
    "'  PREFILL | Decode '; AGGREGATED",
    "aggregated|prefill; AGGREGATED",
    "Encode; ENCODE",
  })
  void parsesCardWorkerTypes(String workerType, WorkerRole expected) throws Exception {
    assertThat(WorkerRole.parseWorkerType(workerType)).isEqualTo(expected);
  }

  @Test
  void absentWorkerTypeIsLegacy() throws Exception {
    assertThat(WorkerRole.parseWorkerType(null)).isEqualTo(WorkerRole.LEGACY);
  }

  @ParameterizedTest(name = "worker_type ''{0}'' is rejected")
  @ValueSource(strings = {"wibble", "legacy", "", "   ", "prefill|encode", "prefill|decode|encode", "prefill|",
    "pre fill", "prefill,decode", "PREF\u0130LL"})
  void rejectsUnknownOrNonCanonicalWorkerTypes(String workerType) {
    WireValidationException e =
        catchThrowableOfType(WireValidationException.class, () -> WorkerRole.parseWorkerType(workerType));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
    assertThat(e.field()).isEqualTo("worker_type");
  }

  @Test
  void textNamesAreLowercase() {
    assertThat(WorkerRole.AGGREGATED.text()).isEqualTo("aggregated");
    assertThat(WorkerRole.LEGACY.text()).isEqualTo("legacy");
  }

  @Test
  void producerPoolRolesMustBeNonEmptyAndUnique() {
    assertThatThrownBy(() -> WorkerRole.requireValidPoolRoles(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pool requires at least one declared worker role");
    assertThatThrownBy(() -> WorkerRole.requireValidPoolRoles(List.of(WorkerRole.DECODE, WorkerRole.DECODE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("pool repeats declared worker role");
    assertThat(WorkerRole.requireValidPoolRoles(List.of(WorkerRole.LEGACY, WorkerRole.PREFILL)))
        .containsExactly(WorkerRole.PREFILL, WorkerRole.LEGACY);
  }
}
