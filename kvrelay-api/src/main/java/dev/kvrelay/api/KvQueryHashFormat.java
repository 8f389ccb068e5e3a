package dev.kvrelay.api;

/**
 * Immutable and thread-safe: how a pool's block hashes are windowed over the request's tokens (wire enum
 * {@code KvQueryHashFormat}).
 */
public enum KvQueryHashFormat {
  /** {@code DYNAMO_STANDARD_V1}: non-overlapping windows of {@code kv_block_size} tokens. */
  DYNAMO_STANDARD_V1(1),
  /** {@code DYNAMO_EAGLE_V1}: windows of {@code kv_block_size + 1} tokens with stride {@code kv_block_size}. */
  DYNAMO_EAGLE_V1(2);

  private final int wireValue;

  KvQueryHashFormat(int wireValue) {
    this.wireValue = wireValue;
  }

  /** The protobuf enum number; also the u16 hash-format identity version used in cache-semantics material. */
  public int wireValue() {
    return wireValue;
  }

  /** The format a card selects: EAGLE iff {@code runtime_config.enable_eagle}. */
  public static KvQueryHashFormat fromEnableEagle(boolean enableEagle) {
    return enableEagle ? DYNAMO_EAGLE_V1 : DYNAMO_STANDARD_V1;
  }

  /**
   * Decodes a wire value: 0 (UNSPECIFIED) is malformed, any other unknown value is unsupported.
   */
  public static KvQueryHashFormat fromWire(int value) throws WireValidationException {
    return switch (value) {
      case 1 -> DYNAMO_STANDARD_V1;
      case 2 -> DYNAMO_EAGLE_V1;
      case 0 -> throw WireValidationException.malformed("hash_format", "hash format is UNSPECIFIED");
      default -> throw WireValidationException.unsupported("hash_format", "unknown hash format " + value);
    };
  }
}
