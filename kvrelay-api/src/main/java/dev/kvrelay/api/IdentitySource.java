package dev.kvrelay.api;

/**
 * Immutable and thread-safe: where a digest identity's material came from (wire enum
 * {@code IdentitySource}). Declaration order is the catalog order: {@code DEFAULT_DERIVED < EXPLICIT}.
 */
public enum IdentitySource {
  /** {@code IDENTITY_SOURCE_DEFAULT_DERIVED}: derived from card defaults. */
  DEFAULT_DERIVED(1),
  /** {@code IDENTITY_SOURCE_EXPLICIT}: derived from an explicit {@code indexer_identity} map. */
  EXPLICIT(2);

  private final int wireValue;

  IdentitySource(int wireValue) {
    this.wireValue = wireValue;
  }

  /** The protobuf enum number. */
  public int wireValue() {
    return wireValue;
  }

  /** Decodes a wire value: 0 (UNSPECIFIED) is malformed, any other unknown value unsupported. */
  public static IdentitySource fromWire(int value) throws WireValidationException {
    return fromWire("source", value);
  }

  static IdentitySource fromWire(String field, int value) throws WireValidationException {
    return switch (value) {
      case 1 -> DEFAULT_DERIVED;
      case 2 -> EXPLICIT;
      case 0 -> throw WireValidationException.malformed(field, "identity source is UNSPECIFIED");
      default -> throw WireValidationException.unsupported(field, "unknown identity source " + value);
    };
  }
}
