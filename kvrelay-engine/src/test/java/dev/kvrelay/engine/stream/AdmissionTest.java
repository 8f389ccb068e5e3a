package dev.kvrelay.engine.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.RelayConfigException;
import dev.kvrelay.engine.RelayEngineConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class AdmissionTest {

  private static RelayAdmission admission(int catalog, int pool, int readiness, int load, int servingLoad)
      throws RelayConfigException {
    return RelayAdmission.from(RelayEngineConfig.builder().dcId("dc-a").bind("127.0.0.1:5561")
        .maxCatalogSubscribers(catalog).maxPoolStreamsTotal(pool).maxReadinessSubscribers(readiness)
        .maxLoadSubscribers(load).maxServingLoadSubscribers(servingLoad).build());
  }

  private static RelayException refusal(AdmissionLimit limit) throws RelayException {
    List<AdmissionPermit> held = new ArrayList<>();
    while (limit.inUse() < limit.limit()) {
      held.add(limit.acquire());
    }
    try {
      limit.acquire();
      throw new AssertionError("acquire beyond the limit succeeded");
    } catch (RelayException e) {
      return e;
    } finally {
      held.forEach(AdmissionPermit::close);
    }
  }

  @Test
  void refusalMessagesUseTheExactStreamNamesOfSpecStep4() throws Exception {
    RelayAdmission a = admission(1, 2, 3, 4, 5);
    // wan-grpc.md §2.1 step 4: "Relay {catalog stream / total pool stream / readiness stream / load stream /
    // serving-load stream} limit N reached"
    assertThat(refusal(a.catalog()).getMessage()).isEqualTo("Relay catalog stream limit 1 reached");
    assertThat(refusal(a.poolStreams()).getMessage()).isEqualTo("Relay total pool stream limit 2 reached");
    assertThat(refusal(a.readiness()).getMessage()).isEqualTo("Relay readiness stream limit 3 reached");
    assertThat(refusal(a.load()).getMessage()).isEqualTo("Relay load stream limit 4 reached");
    assertThat(refusal(a.servingLoad()).getMessage()).isEqualTo("Relay serving-load stream limit 5 reached");
  }

  @Test
  void refusalCarriesResourceLimitWhichTravelsAsResourceExhausted() throws Exception {
    RelayException e = refusal(new AdmissionLimit("load stream", 1));
    assertThat(e.reason()).isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
    assertThat(e.reason().statusCode()).isEqualTo("RESOURCE_EXHAUSTED");
  }

  @Test
  void everyRefusalIsCountedAndChangesNothingHeld() throws Exception {
    AdmissionLimit limit = new AdmissionLimit("catalog stream", 2);
    AdmissionPermit p1 = limit.acquire();
    AdmissionPermit p2 = limit.acquire();
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(limit::acquire).isInstanceOf(RelayException.class);
    }
    assertThat(limit.refused()).isEqualTo(3);
    assertThat(limit.inUse()).isEqualTo(2);
    p1.close();
    p2.close();
    assertThat(limit.inUse()).isZero();
    assertThat(limit.refused()).isEqualTo(3);
  }

  @Test
  void permitCloseIsIdempotentAndFreesExactlyOneSlot() throws Exception {
    AdmissionLimit limit = new AdmissionLimit("readiness stream", 2);
    AdmissionPermit p = limit.acquire();
    limit.acquire();
    p.close();
    p.close();
    p.close();
    assertThat(p.isReleased()).isTrue();
    assertThat(limit.inUse()).isEqualTo(1);
    limit.acquire();
    assertThatThrownBy(limit::acquire).isInstanceOf(RelayException.class);
  }

  @Test
  void limitsAreIndependentPerStreamType() throws Exception {
    RelayAdmission a = admission(1, 1, 1, 1, 1);
    a.catalog().acquire();
    assertThatThrownBy(a.catalog()::acquire).isInstanceOf(RelayException.class);
    for (Function<RelayAdmission, AdmissionLimit> other : List.<Function<RelayAdmission, AdmissionLimit>>of(
        RelayAdmission::poolStreams, RelayAdmission::readiness, RelayAdmission::load,
        RelayAdmission::servingLoad)) {
      assertThat(other.apply(a).acquire().isReleased()).isFalse();
    }
  }

  @Test
  void defaultLimitsAreTheSpecDefaultsOf64() throws Exception {
    RelayAdmission a = RelayAdmission.from(RelayEngineConfig.builder().dcId("dc-a").build());
    assertThat(List.of(a.catalog(), a.poolStreams(), a.readiness(), a.load(), a.servingLoad()))
        .extracting(AdmissionLimit::limit).containsOnly(64);
  }

  @Test
  void limitBelowOneIsRejected() {
    assertThatThrownBy(() -> new AdmissionLimit("load stream", 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
