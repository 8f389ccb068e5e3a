package dev.kvrelay.ckf.hashing;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * Immutable and thread-safe: XXH3-64 (seeded variant, default secret) as every kvrelay format uses it.
 *
 * <p>Backed by hash4j; byte ranges and the 8- and 16-byte inputs ({@link #hashLong}, {@link #hashLongLong})
 * hash without allocating, while {@link #hashShort} allocates (hot paths precompute instead, as
 * {@code CkfAddressing} does). Multi-byte integers are hashed as their little-endian bytes, exactly as the
 * Rust side serializes them.
 */
public final class Xxh3 {
  private static final Hasher64 UNSEEDED = Hashing.xxh3_64();

  private final Hasher64 hasher;
  private final long seed;

  private Xxh3(long seed) {
    this.seed = seed;
    this.hasher = seed == 0 ? UNSEEDED : Hashing.xxh3_64(seed);
  }

  /** XXH3-64 with the given seed. */
  public static Xxh3 withSeed(long seed) {
    return new Xxh3(seed);
  }

  /** The seed this instance hashes with. */
  public long seed() {
    return seed;
  }

  /** XXH3-64 of {@code bytes[off, off+len)}. */
  public long hash(byte[] bytes, int off, int len) {
    return hasher.hashBytesToLong(bytes, off, len);
  }

  /** XXH3-64 of all of {@code bytes}. */
  public long hash(byte[] bytes) {
    return hasher.hashBytesToLong(bytes, 0, bytes.length);
  }

  /** XXH3-64 of {@code LE64(value)}: an 8-byte input. */
  public long hashLong(long value) {
    return hasher.hashLongToLong(value);
  }

  /** XXH3-64 of {@code LE64(first) ‖ LE64(second)}: a 16-byte input. */
  public long hashLongLong(long first, long second) {
    return hasher.hashLongLongToLong(first, second);
  }

  /** XXH3-64 of {@code LE16(value)}: a 2-byte input. Allocates; not for hot paths. */
  public long hashShort(int value) {
    return hasher.hashBytesToLong(new byte[] {(byte) value, (byte) (value >>> 8)}, 0, 2);
  }

  /**
   * A new streaming hasher with this seed; {@code reset()} and reuse it to hash without allocating.
   * The stream is mutable: confine it to one thread.
   */
  HashStream64 newStream() {
    return hasher.hashStream();
  }

  /** Unseeded XXH3-64 of {@code bytes[off, off+len)}. */
  public static long unseeded(byte[] bytes, int off, int len) {
    return UNSEEDED.hashBytesToLong(bytes, off, len);
  }

  /** Unseeded XXH3-64 of a UTF-8 string. */
  public static long unseeded(String utf8) {
    byte[] b = utf8.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return UNSEEDED.hashBytesToLong(b, 0, b.length);
  }
}
