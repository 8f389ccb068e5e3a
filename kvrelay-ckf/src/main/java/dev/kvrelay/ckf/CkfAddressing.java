package dev.kvrelay.ckf;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.hashing.Xxh3;

/**
 * Immutable and thread-safe: maps a canonical 64-bit hash to its fingerprint and two candidate
 * buckets for one {@link CkfFormat}. Probing allocates nothing.
 *
 * <pre>
 *   mixed       = XXH3_64(LE64(hash), seed)
 *   fingerprint = low 16 bits of mixed, 0 mapped to 1
 *   bucketA     = (mixed &gt;&gt;&gt; 16) &amp; mask
 *   delta(fp)   = XXH3_64(LE16(fp), seed ^ GOLDEN) &amp; mask, 0 mapped to 1
 *   bucketB     = bucketA ^ delta(fingerprint)
 * </pre>
 *
 * <p>{@link #prepare(long)} packs the three values into one {@code long}: fingerprint in bits 0–15,
 * bucket A in bits 16–39, bucket B in bits 40–63 (bucket indexes fit 24 bits because B ≤ 2^24).
 * The delta is computed per call (no per-seed table).
 */
public final class CkfAddressing {
  /** The golden-ratio constant XOR-ed into the seed for the alternate-bucket hash. */
  public static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

  /**
   * XXH3's {@code bitflip} for inputs of 1–3 bytes without the seed: the first two little-endian 32-bit words of its
   * default secret XOR-ed ({@code 0x396CFEB8 ^ 0xBE4BA423}).
   */
  private static final long SHORT_INPUT_SECRET = (0x396C_FEB8L ^ 0xBE4B_A423L) & 0xFFFF_FFFFL;
  private static final long PRIME64_2 = 0xC2B2_AE3D_27D4_EB4FL;
  private static final long PRIME64_3 = 0x1656_67B1_9E37_79F9L;

  private final CkfFormat format;
  private final Xxh3 xxh3;
  private final int mask;
  /** XXH3's 1–3-byte {@code bitflip} for the delta hash: the secret word plus the seed {@code seed ^ GOLDEN}. */
  private final long deltaBitflip;

  private CkfAddressing(CkfFormat format) {
    this.format = format;
    this.xxh3 = Xxh3.withSeed(format.seed());
    this.mask = format.bucketMask();
    this.deltaBitflip = SHORT_INPUT_SECRET + (format.seed() ^ GOLDEN);
  }

  /** Addressing for a format. */
  public static CkfAddressing of(CkfFormat format) {
    return new CkfAddressing(format);
  }

  /**
   * {@code XXH3_64(LE16(fp), seed ^ GOLDEN)}: XXH3's path for a 1–3-byte input, written out for 2 bytes
   * ({@code combined = b0 << 16 | b1 << 24 | b1 | len << 8}, XOR the bitflip, XXH64's avalanche). The library's
   * call needs a byte array; this is a few ALU operations where the table it replaces (256 KiB, one entry per
   * fingerprint) was a dependent cache load on the way to bucket B, and missed L2 while queries stream a DRAM-sized
   * table through it (measured −0.45 to −0.50 µs p50 per all-full 16-lane DRAM prefix query). Checked against
   * hash4j for all 65 536 fingerprints in the tests.
   */
  private long deltaHash(int fp) {
    int lo = fp & 0xFF;
    int hi = (fp >>> 8) & 0xFF;
    long h = (((lo << 16) | (hi << 24) | hi | (2 << 8)) & 0xFFFF_FFFFL) ^ deltaBitflip;
    h ^= h >>> 33;
    h *= PRIME64_2;
    h ^= h >>> 29;
    h *= PRIME64_3;
    return h ^ (h >>> 32);
  }

  /** The format this addressing serves. */
  public CkfFormat format() {
    return format;
  }

  /** Number of buckets. */
  public int bucketCount() {
    return mask + 1;
  }

  /** Packed (fingerprint, bucketA, bucketB) of a canonical hash; see the class comment. */
  public long prepare(long canonicalHash) {
    long mixed = mix(canonicalHash);
    int fp = fingerprintOfMix(mixed);
    int a = bucketAOfMix(mixed);
    int b = a ^ delta(fp);
    return fp | ((long) a << 16) | ((long) b << 40);
  }

  /**
   * {@code mixed = XXH3_64(LE64(canonicalHash), seed)}, from which {@link #fingerprintOfMix(long)} and
   * {@link #bucketAOfMix(long)} cut the fingerprint and bucket A. A lookup that may stop at bucket A uses these
   * instead of {@link #prepare(long)}, which also computes bucket B (the delta hash).
   */
  public long mix(long canonicalHash) {
    return xxh3.hashLong(canonicalHash);
  }

  /** The non-zero fingerprint of a {@link #mix(long)} value: its low 16 bits, 0 mapped to 1 (branch-free). */
  public static int fingerprintOfMix(long mixed) {
    int fp = (int) mixed & 0xFFFF;
    return fp | ((fp - 1) >>> 31);
  }

  /** Bucket A of a {@link #mix(long)} value. */
  public int bucketAOfMix(long mixed) {
    return (int) (mixed >>> 16) & mask;
  }

  /**
   * True when {@code packed} is an address this addressing's {@link #prepare(long)} can return: a non-zero
   * fingerprint, bucket A inside the table and bucket B its alternate (a few integer operations; the caller of a
   * prepared-address entry point checks it so that a foreign or corrupt address is refused, never written).
   */
  public boolean isPrepared(long packed) {
    int fp = fingerprint(packed);
    int a = bucketA(packed);
    return fp != 0 && a <= mask && (packed >>> 40) == (long) (a ^ delta(fp));
  }

  /** The non-zero fingerprint of a canonical hash. */
  public int fingerprintOf(long canonicalHash) {
    return fingerprint(prepare(canonicalHash));
  }

  /** The other bucket of fingerprint {@code fp} when it sits in {@code bucket}; an involution. */
  public int alternate(int bucket, int fp) {
    return bucket ^ delta(fp);
  }

  private int delta(int fp) {
    int d = (int) deltaHash(fp) & mask;
    return d | ((d - 1) >>> 31); // 0 mapped to 1, branch-free: d - 1 is negative only for d == 0
  }

  /** Fingerprint field of a packed address. */
  public static int fingerprint(long packed) {
    return (int) (packed & 0xFFFF);
  }

  /** Bucket A field of a packed address. */
  public static int bucketA(long packed) {
    return (int) ((packed >>> 16) & 0xFF_FFFF);
  }

  /** Bucket B field of a packed address. */
  public static int bucketB(long packed) {
    return (int) (packed >>> 40);
  }
}
