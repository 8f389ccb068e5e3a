package dev.kvrelay.grpc.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RelayStatusTest {

  @ParameterizedTest
  @EnumSource(value = RelayErrorReason.class, names = "UNSPECIFIED", mode = EnumSource.Mode.EXCLUDE)
  void everyReasonRoundTripsThroughStatusAndTrailer(RelayErrorReason reason) {
    StatusRuntimeException e = RelayStatus.toStatus(new RelayException(reason, "why"));
    assertThat(e.getStatus().getCode().name()).isEqualTo(reason.statusCode());
    assertThat(e.getTrailers().get(RelayStatus.REASON_KEY)).isEqualTo("RELAY_ERROR_REASON_" + reason.name());
    RelayException back = RelayStatus.fromThrowable(e);
    assertThat(back.reason()).isEqualTo(reason);
    assertThat(back.getMessage()).contains("why");
  }

  @Test
  void c24_absentUnknownAndUnspecifiedTrailersFallBackToTheStatusCode() {
    Metadata unknown = new Metadata();
    unknown.put(RelayStatus.REASON_KEY, "RELAY_ERROR_REASON_FUTURE");
    Metadata unspecified = new Metadata();
    unspecified.put(RelayStatus.REASON_KEY, "RELAY_ERROR_REASON_UNSPECIFIED");
    assertThat(RelayStatus.fromStatus(Status.RESOURCE_EXHAUSTED, null).reason()).isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
    assertThat(RelayStatus.fromStatus(Status.NOT_FOUND, unknown).reason()).isEqualTo(RelayErrorReason.POOL_NOT_FOUND);
    assertThat(RelayStatus.fromStatus(Status.UNAVAILABLE, unspecified).reason())
        .isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(RelayStatus.fromStatus(Status.INVALID_ARGUMENT, new Metadata()).reason())
        .isEqualTo(RelayErrorReason.INVALID_REQUEST);
  }
}
