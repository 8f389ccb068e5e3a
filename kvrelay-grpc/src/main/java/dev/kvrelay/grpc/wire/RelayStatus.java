package dev.kvrelay.grpc.wire;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the one mapping between a typed {@link RelayException} and a gRPC status with the
 * ASCII trailer {@value RelayErrorReason#TRAILER_KEY} carrying the reason's enum name (wan-grpc.md §2.2), used by the
 * server to end a call and by the client to read one. Never {@code grpc-status-details-bin}.
 */
public final class RelayStatus {
  /** The trailer key ({@code kv-relay-error-reason}), ASCII. */
  public static final Metadata.Key<String> REASON_KEY =
      Metadata.Key.of(RelayErrorReason.TRAILER_KEY, Metadata.ASCII_STRING_MARSHALLER);

  private RelayStatus() {}

  /** The status code a reason is sent with (wan-grpc.md §2.2). */
  public static Status.Code code(RelayErrorReason reason) {
    return Status.Code.valueOf(reason.statusCode());
  }

  /** The error a server ends a call with: the reason's status code and message, and the reason trailer. */
  public static StatusRuntimeException toStatus(RelayException e) {
    Metadata trailers = new Metadata();
    trailers.put(REASON_KEY, e.reason().wireName());
    return code(e.reason()).toStatus().withDescription(e.getMessage()).asRuntimeException(trailers);
  }

  /**
   * What a client reads from a failed call: the trailer's reason when it names a known one, else the reason the
   * status code implies ({@link #fallback}); the message is the status description.
   */
  public static RelayException fromStatus(Status status, @Nullable Metadata trailers) {
    Optional<RelayErrorReason> named =
        RelayErrorReason.fromTrailer(trailers == null ? null : trailers.get(REASON_KEY));
    RelayErrorReason reason = named.orElseGet(() -> fallback(status.getCode()));
    String description = status.getDescription();
    return new RelayException(reason, "gRPC " + status.getCode() + (description == null ? "" : ": " + description));
  }

  /** {@link #fromStatus} for a thrown {@link StatusRuntimeException} or {@link StatusException}. */
  public static RelayException fromThrowable(Throwable t) {
    if (t instanceof StatusRuntimeException sre) {
      return fromStatus(sre.getStatus(), sre.getTrailers());
    }
    if (t instanceof StatusException se) {
      return fromStatus(se.getStatus(), se.getTrailers());
    }
    return fromStatus(Status.fromThrowable(t), Status.trailersFromThrowable(t));
  }

  /**
   * The reason a client assumes when the trailer is absent, unknown or {@code …_UNSPECIFIED} (wan-grpc.md §2.2:
   * fall back to the status code): the one reason sent with that code, or the most conservative of several.
   */
  public static RelayErrorReason fallback(Status.Code code) {
    return switch (code) {
      case INVALID_ARGUMENT -> RelayErrorReason.INVALID_REQUEST;
      case NOT_FOUND -> RelayErrorReason.POOL_NOT_FOUND;
      case RESOURCE_EXHAUSTED -> RelayErrorReason.RESOURCE_LIMIT;
      case FAILED_PRECONDITION -> RelayErrorReason.PRODUCER_CHANGED;
      case INTERNAL -> RelayErrorReason.INTERNAL;
      default -> RelayErrorReason.PUBLICATION_UNAVAILABLE;
    };
  }
}
