package dev.kvrelay.api;

/**
 * Immutable and thread-safe: readiness of a serving topology entry (wire enum
 * {@code ServingReadinessState}). {@link #UNKNOWN} (0) is a valid state, not a missing value.
 */
public enum ServingReadinessState {
  /** {@code SERVING_READINESS_STATE_UNKNOWN} (0): readiness cannot be decided yet. Valid. */
  UNKNOWN(0),
  /** {@code SERVING_READINESS_STATE_UNAVAILABLE} (1). */
  UNAVAILABLE(1),
  /** {@code SERVING_READINESS_STATE_READY} (2). */
  READY(2);

  private final int wireValue;

  ServingReadinessState(int wireValue) {
    this.wireValue = wireValue;
  }

  /** The protobuf enum number. */
  public int wireValue() {
    return wireValue;
  }

  /** Decodes a wire value: 0, 1, 2 are valid; any other value is unsupported. */
  public static ServingReadinessState fromWire(int value) throws WireValidationException {
    return switch (value) {
      case 0 -> UNKNOWN;
      case 1 -> UNAVAILABLE;
      case 2 -> READY;
      default -> throw WireValidationException.unsupported("state", "unknown serving readiness state " + value);
    };
  }
}
