package dev.kvrelay.api;

import java.util.Objects;

/**
 * Immutable and thread-safe: how a consumer must hash a request to query a pool (wire
 * {@code KvQuerySemantics}).
 *
 * @param kvBlockSize tokens per KV block: a {@code uint32} held in an {@code int} (read it with
 *     {@link Integer#toUnsignedLong(int)}), never 0
 * @param hashFormat block-hash windowing
 */
public record KvQuerySemantics(int kvBlockSize, KvQueryHashFormat hashFormat) {

  /**
   * Trusted constructor.
   *
   * @throws IllegalArgumentException if {@code kvBlockSize} is 0 ({@code ZeroBlockSize})
   */
  public KvQuerySemantics {
    Objects.requireNonNull(hashFormat, "hashFormat");
    if (kvBlockSize == 0) {
      throw new IllegalArgumentException("KV query block size must be nonzero");
    }
  }

  /**
   * Validates wire values in field order: {@code kv_block_size} 0 is malformed; {@code hash_format}
   * per {@link KvQueryHashFormat#fromWire(int)} (0 malformed, unknown unsupported).
   *
   * @param kvBlockSize the {@code uint32} bits
   * @param hashFormat the enum number
   */
  public static KvQuerySemantics fromWire(int kvBlockSize, int hashFormat) throws WireValidationException {
    if (kvBlockSize == 0) {
      throw WireValidationException.malformed("kv_block_size", "KV query block size must be nonzero");
    }
    return new KvQuerySemantics(kvBlockSize, KvQueryHashFormat.fromWire(hashFormat));
  }

  /** {@code kv_block_size} as an unsigned value. */
  public long kvBlockSizeUnsigned() {
    return Integer.toUnsignedLong(kvBlockSize);
  }

  @Override
  public String toString() {
    return "KvQuerySemantics[kv_block_size=" + Integer.toUnsignedString(kvBlockSize) + ", " + hashFormat + "]";
  }
}
