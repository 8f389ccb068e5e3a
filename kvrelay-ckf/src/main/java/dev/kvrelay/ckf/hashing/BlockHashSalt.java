package dev.kvrelay.ckf.hashing;

import java.nio.charset.StandardCharsets;

/**
 * Immutable and thread-safe: the XXH3 seed of a request's local block hashes, derived from its LoRA
 * adapter and cache namespace.
 *
 * <p>Additive variant (a) of the salt decision in {@code runtime-inputs.md} §7.1: start at
 * {@value #BASE_SEED}; a non-empty LoRA name adds {@code XXH3_64(utf8(lora), seed 0)}; a non-empty cache
 * namespace adds {@code XXH3_64(utf8(namespace), seed 1)}; all additions wrap modulo 2^64. Empty and
 * absent are the same. For a LoRA pool pass the canonical adapter id, never an alias.
 *
 * @param seed the unsigned 64-bit XXH3 seed for block hashing
 */
public record BlockHashSalt(long seed) {
  /** The unsalted seed ({@code XXH3_SEED}). */
  public static final long BASE_SEED = 1337L;

  /** No LoRA adapter, no cache namespace: seed {@value #BASE_SEED}. */
  public static final BlockHashSalt NONE = new BlockHashSalt(BASE_SEED);

  private static final Xxh3 LORA = Xxh3.withSeed(0L);
  private static final Xxh3 NAMESPACE = Xxh3.withSeed(1L);

  /** The salt for a LoRA adapter and a cache namespace; an empty string means absent. */
  public static BlockHashSalt of(String loraName, String cacheNamespace) {
    long seed = BASE_SEED;
    if (!loraName.isEmpty()) {
      seed += LORA.hash(loraName.getBytes(StandardCharsets.UTF_8));
    }
    if (!cacheNamespace.isEmpty()) {
      seed += NAMESPACE.hash(cacheNamespace.getBytes(StandardCharsets.UTF_8));
    }
    return new BlockHashSalt(seed);
  }

  @Override
  public String toString() {
    return "BlockHashSalt[seed=" + Long.toUnsignedString(seed) + "]";
  }
}
