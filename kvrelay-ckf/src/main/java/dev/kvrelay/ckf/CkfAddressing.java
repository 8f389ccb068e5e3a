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
 * The per-fingerprint deltas are computed once per seed (65 536 XXH3 calls) and cached.
 */
public final class CkfAddressing {
  /** The golden-ratio constant XOR-ed into the seed for the alternate-bucket hash. */
  public static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

  private static final int FP_SPACE = 1 << 16;
  private static volatile int @org.jspecify.annotations.Nullable [] defaultSeedDeltas;

  private final CkfFormat format;
  private final Xxh3 xxh3;
  private final int mask;
  /** Low 32 bits of XXH3(LE16(fp), seed ^ GOLDEN), indexed by fingerprint. */
  private final int[] rawDelta;

  private CkfAddressing(CkfFormat format) {
    this.format = format;
    this.xxh3 = Xxh3.withSeed(format.seed());
    this.mask = format.bucketMask();
    this.rawDelta = deltasFor(format.seed());
  }

  /** Addressing for a format. */
  public static CkfAddressing of(CkfFormat format) {
    return new CkfAddressing(format);
  }

  private static int[] deltasFor(long seed) {
    if (seed == CkfFormat.DEFAULT_SEED) {
      int[] cached = defaultSeedDeltas;
      if (cached == null) {
        cached = computeDeltas(seed);
        defaultSeedDeltas = cached;
      }
      return cached;
    }
    return computeDeltas(seed);
  }

  private static int[] computeDeltas(long seed) {
    Xxh3 h = Xxh3.withSeed(seed ^ GOLDEN);
    int[] table = new int[FP_SPACE];
    byte[] two = new byte[2];
    for (int fp = 0; fp < FP_SPACE; fp++) {
      two[0] = (byte) fp;
      two[1] = (byte) (fp >>> 8);
      table[fp] = (int) h.hash(two, 0, 2);
    }
    return table;
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
   * instead of {@link #prepare(long)}, which also computes bucket B (one more dependent load, of the delta table).
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
    int d = rawDelta[fp] & mask;
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
