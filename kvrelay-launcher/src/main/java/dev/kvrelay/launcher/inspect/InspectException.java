package dev.kvrelay.launcher.inspect;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.jspecify.annotations.Nullable;

/**
 * Immutable: a failed inspect call, naming its gRPC status and the {@code kv-relay-error-reason} trailer (wan-grpc
 * §8; empty when the relay sent none).
 */
final class InspectException extends Exception {
  private static final long serialVersionUID = 1L;
  /** The relay's typed error reason trailer. */
  static final Metadata.Key<String> REASON = Metadata.Key.of("kv-relay-error-reason",
      Metadata.ASCII_STRING_MARSHALLER);

  private final transient Status.Code code;
  private final String reason;

  InspectException(String call, Status.Code code, String reason, @Nullable String description) {
    super(call + ": " + code + " kv-relay-error-reason=" + (reason.isEmpty() ? "(none)" : reason)
        + (description == null || description.isEmpty() ? "" : ": " + description));
    this.code = code;
    this.reason = reason;
  }

  /** The exception for a call's failure {@code t}. */
  static InspectException of(String call, @Nullable Throwable t) {
    if (t instanceof StatusRuntimeException e) {
      Metadata trailers = e.getTrailers();
      String reason = trailers == null ? null : trailers.get(REASON);
      return new InspectException(call, e.getStatus().getCode(), reason == null ? "" : reason,
          e.getStatus().getDescription());
    }
    Status s = Status.fromThrowable(t);
    return new InspectException(call, s.getCode(), "", s.getDescription() != null ? s.getDescription()
        : String.valueOf(t));
  }

  /** The gRPC status code. */
  Status.Code code() {
    return code;
  }

  /** The {@code kv-relay-error-reason}, empty when absent. */
  String reason() {
    return reason;
  }
}
