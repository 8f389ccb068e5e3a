package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelayErrorReasonTest {

  @Test
  void numbersAndStatusCodesFollowWanGrpcSections13And22() {
    // (name, number, status) transcribed from wan-grpc.md §1.3 (numbers) and §2.2 (codes).
    Map<String, Object[]> expected = new LinkedHashMap<>();
    expected.put("UNSPECIFIED", new Object[] {0, "INTERNAL"});
    expected.put("CONTRACT_MISMATCH", new Object[] {1, "FAILED_PRECONDITION"});
    expected.put("INVALID_REQUEST", new Object[] {2, "INVALID_ARGUMENT"});
    expected.put("UNSUPPORTED_FEATURE", new Object[] {3, "FAILED_PRECONDITION"});
    expected.put("POOL_NOT_FOUND", new Object[] {4, "NOT_FOUND"});
    expected.put("PRODUCER_CHANGED", new Object[] {5, "FAILED_PRECONDITION"});
    expected.put("RESOURCE_LIMIT", new Object[] {6, "RESOURCE_EXHAUSTED"});
    expected.put("SUBSCRIBER_LAGGED", new Object[] {7, "RESOURCE_EXHAUSTED"});
    expected.put("SNAPSHOT_PROGRESS_TIMEOUT", new Object[] {8, "RESOURCE_EXHAUSTED"});
    expected.put("PUBLICATION_UNAVAILABLE", new Object[] {9, "UNAVAILABLE"});
    expected.put("INVALID_PUBLICATION", new Object[] {10, "FAILED_PRECONDITION"});
    expected.put("INTERNAL", new Object[] {11, "INTERNAL"});
    assertThat(RelayErrorReason.values()).hasSize(expected.size());
    for (RelayErrorReason r : RelayErrorReason.values()) {
      Object[] e = expected.get(r.name());
      assertThat(e).as(r.name()).isNotNull();
      assertThat(r.wireValue()).as(r.name()).isEqualTo(e[0]);
      assertThat(r.statusCode()).as(r.name()).isEqualTo(e[1]);
    }
  }

  @Test
  void trailerCarriesTheFullEnumName() {
    assertThat(RelayErrorReason.PRODUCER_CHANGED.wireName()).isEqualTo("RELAY_ERROR_REASON_PRODUCER_CHANGED");
    assertThat(RelayErrorReason.TRAILER_KEY).isEqualTo("kv-relay-error-reason");
    assertThat(RelayErrorReason.fromTrailer("RELAY_ERROR_REASON_SUBSCRIBER_LAGGED"))
        .contains(RelayErrorReason.SUBSCRIBER_LAGGED);
  }

  @Test
  void absentUnknownAndUnspecifiedTrailersReadAsAbsent() {
    assertThat(RelayErrorReason.fromTrailer(null)).isEmpty();
    assertThat(RelayErrorReason.fromTrailer("RELAY_ERROR_REASON_UNSPECIFIED")).isEmpty();
    assertThat(RelayErrorReason.fromTrailer("RELAY_ERROR_REASON_NEW_THING")).isEmpty();
    assertThat(RelayErrorReason.fromTrailer("SUBSCRIBER_LAGGED")).isEmpty();
    assertThat(RelayErrorReason.fromTrailer("")).isEmpty();
  }
}
