package dev.kvrelay.api;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: why a relay call or stream failed (wire enum {@code RelayErrorReason},
 * wan-grpc.md §1.3 and §2.2). It travels only in the {@value #TRAILER_KEY} trailer, as the full enum name
 * ({@link #wireName()}), together with the gRPC status code named by {@link #statusCode()}; in process it is
 * carried by {@link RelayException}.
 */
public enum RelayErrorReason {
  /** 0: never sent; read as absent. */
  UNSPECIFIED(0, "INTERNAL"),
  /** 1: the request's contract marker is wrong. */
  CONTRACT_MISMATCH(1, "FAILED_PRECONDITION"),
  /** 2: bad subscriber id, or missing or malformed expected producer. */
  INVALID_REQUEST(2, "INVALID_ARGUMENT"),
  /** 3: the expected producer uses unsupported semantics. */
  UNSUPPORTED_FEATURE(3, "FAILED_PRECONDITION"),
  /** 4: the pool is not in the current catalog or not active. */
  POOL_NOT_FOUND(4, "NOT_FOUND"),
  /** 5: the pool is active but its producer identity differs from the expected one. */
  PRODUCER_CHANGED(5, "FAILED_PRECONDITION"),
  /** 6: an admission bound was reached. */
  RESOURCE_LIMIT(6, "RESOURCE_EXHAUSTED"),
  /** 7: the subscriber overflowed its queue (or fell behind a load ring). */
  SUBSCRIBER_LAGGED(7, "RESOURCE_EXHAUSTED"),
  /** 8: the subscriber did not drain the snapshot bootstrap in time. */
  SNAPSHOT_PROGRESS_TIMEOUT(8, "RESOURCE_EXHAUSTED"),
  /** 9: generation retired or withdrawn, hub stopped or re-snapshotted, shutting down, publisher closed. */
  PUBLICATION_UNAVAILABLE(9, "UNAVAILABLE"),
  /** 10: the producer emitted an invalid identity, sequence or format (the generation is fenced). */
  INVALID_PUBLICATION(10, "FAILED_PRECONDITION"),
  /** 11: internal failure, e.g. the snapshot encoder failed (the generation is fenced). */
  INTERNAL(11, "INTERNAL");

  /** The ASCII metadata key of the trailer carrying {@link #wireName()}. */
  public static final String TRAILER_KEY = "kv-relay-error-reason";

  private static final String PREFIX = "RELAY_ERROR_REASON_";

  private final int wireValue;
  private final String statusCode;

  RelayErrorReason(int wireValue, String statusCode) {
    this.wireValue = wireValue;
    this.statusCode = statusCode;
  }

  /** The protobuf enum number. */
  public int wireValue() {
    return wireValue;
  }

  /** The trailer value: the protobuf enum name, e.g. {@code RELAY_ERROR_REASON_PRODUCER_CHANGED}. */
  public String wireName() {
    return PREFIX + name();
  }

  /** The name of the gRPC status code this reason is sent with (wan-grpc.md §2.2), e.g. {@code NOT_FOUND}. */
  public String statusCode() {
    return statusCode;
  }

  /**
   * Reads a trailer value: absent for null, unknown names and {@code …_UNSPECIFIED} (clients then fall back to
   * the status code, wan-grpc.md §2.2).
   */
  public static Optional<RelayErrorReason> fromTrailer(@Nullable String value) {
    if (value == null || !value.startsWith(PREFIX)) {
      return Optional.empty();
    }
    for (RelayErrorReason r : values()) {
      if (r != UNSPECIFIED && r.wireName().equals(value)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
