package dev.kvrelay.engine.wire;

import dev.kvrelay.api.WireValidationException;

/** Immutable and thread-safe: completeness of a serving-load view (wire enum {@code DataStatus}, wan-grpc.md §1.3). */
public enum DataStatus {
  /** {@code DATA_STATUS_COMPLETE} (1): every expected source has fresh views of every declared rank. */
  COMPLETE(1),
  /** {@code DATA_STATUS_DEGRADED} (2): some views are fresh, but coverage is incomplete. */
  DEGRADED(2),
  /** {@code DATA_STATUS_UNAVAILABLE} (3): no fresh view. */
  UNAVAILABLE(3);

  private final int wireValue;

  DataStatus(int wireValue) {
    this.wireValue = wireValue;
  }

  /** The protobuf enum number. */
  public int wireValue() {
    return wireValue;
  }

  /** Decodes a wire value: 0 ({@code UNSPECIFIED}) is malformed, any other unknown value unsupported (§1.7). */
  public static DataStatus fromWire(int value) throws WireValidationException {
    return switch (value) {
      case 1 -> COMPLETE;
      case 2 -> DEGRADED;
      case 3 -> UNAVAILABLE;
      case 0 -> throw WireValidationException.malformed("status", "data status is UNSPECIFIED");
      default -> throw WireValidationException.unsupported("status", "unknown data status " + value);
    };
  }
}
