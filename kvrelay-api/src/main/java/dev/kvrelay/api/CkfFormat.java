package dev.kvrelay.api;

import org.jspecify.annotations.Nullable;

/**
 * The immutable layout identity of one CKF: format version, seed, bucket count, fingerprint width and
 * slots per bucket. Part of {@code ProducerIdentity}; two filters are interchangeable only if their
 * formats are equal in all five fields.
 *
 * <p>Use {@link #of(long, long)} for the only supported layout (version 1, 16-bit fingerprints, four
 * slots) and {@link #validate(long, long, long, long, long)} for values read from the wire.
 *
 * @param formatVersion CKF format version, always {@value #FORMAT_VERSION} when valid
 * @param seed CKF addressing seed, an unsigned 64-bit value
 * @param bucketCount number of u64 buckets: a power of two in {@code [2, 2^24]}
 * @param fingerprintBits always {@value #FINGERPRINT_BITS}
 * @param slotsPerBucket always {@value #SLOTS_PER_BUCKET}
 */
public record CkfFormat(int formatVersion, long seed, int bucketCount, int fingerprintBits, int slotsPerBucket) {

  /** The only CKF format version. */
  public static final int FORMAT_VERSION = 1;
  /** Fingerprint width in bits. */
  public static final int FINGERPRINT_BITS = 16;
  /** Fingerprint slots in one u64 bucket. */
  public static final int SLOTS_PER_BUCKET = 4;
  /** The fixed seed every relay uses for every pool ({@code 0x5DEECE66D1B54A33}). */
  public static final long DEFAULT_SEED = 0x5DEE_CE66_D1B5_4A33L;
  /** Smallest bucket count. */
  public static final int MIN_BUCKET_COUNT = 2;
  /** Largest bucket count CBI1 can carry (2^24). */
  public static final int MAX_BUCKET_COUNT = 1 << 24;

  /** Canonical constructor: rejects anything but a valid, supported format. */
  public CkfFormat {
    if (formatVersion != FORMAT_VERSION
        || fingerprintBits != FINGERPRINT_BITS
        || slotsPerBucket != SLOTS_PER_BUCKET) {
      throw new IllegalArgumentException(
          "unsupported CKF format: version " + formatVersion + ", fingerprint_bits " + fingerprintBits
              + ", slots_per_bucket " + slotsPerBucket);
    }
    if (!isValidBucketCount(bucketCount)) {
      throw new IllegalArgumentException(
          "bucket_count must be a power of two in [2, 2^24], got " + bucketCount);
    }
  }

  /**
   * The supported format with the given seed and bucket count.
   *
   * @throws IllegalArgumentException if {@code bucketCount} is not a power of two in {@code [2, 2^24]}
   */
  public static CkfFormat of(long seed, long bucketCount) {
    if (bucketCount < MIN_BUCKET_COUNT || bucketCount > MAX_BUCKET_COUNT) {
      throw new IllegalArgumentException(
          "bucket_count must be a power of two in [2, 2^24], got " + Long.toUnsignedString(bucketCount));
    }
    return new CkfFormat(FORMAT_VERSION, seed, (int) bucketCount, FINGERPRINT_BITS, SLOTS_PER_BUCKET);
  }

  /** The default-seed format for a bucket count. */
  public static CkfFormat withDefaultSeed(long bucketCount) {
    return of(DEFAULT_SEED, bucketCount);
  }

  /**
   * Validates wire values in the contract's order: the zero-field check first (malformed), then the
   * fixed fields (unsupported), then the bucket count (too large: unsupported; not a power of two or
   * below 2: malformed). All arguments are unsigned wire values.
   */
  public static CkfFormat validate(
      long formatVersion, long seed, long bucketCount, long fingerprintBits, long slotsPerBucket)
      throws WireValidationException {
    if (formatVersion == 0 || bucketCount == 0 || fingerprintBits == 0 || slotsPerBucket == 0) {
      throw WireValidationException.malformed("ckf_format", "format_version, bucket_count, "
          + "fingerprint_bits and slots_per_bucket must all be non-zero");
    }
    if (formatVersion != FORMAT_VERSION) {
      throw WireValidationException.unsupported("ckf_format.format_version",
          "unsupported CKF format version " + Long.toUnsignedString(formatVersion));
    }
    if (fingerprintBits != FINGERPRINT_BITS) {
      throw WireValidationException.unsupported("ckf_format.fingerprint_bits",
          "unsupported fingerprint width " + Long.toUnsignedString(fingerprintBits));
    }
    if (slotsPerBucket != SLOTS_PER_BUCKET) {
      throw WireValidationException.unsupported("ckf_format.slots_per_bucket",
          "unsupported slots per bucket " + Long.toUnsignedString(slotsPerBucket));
    }
    if (Long.compareUnsigned(bucketCount, MAX_BUCKET_COUNT) > 0) {
      throw WireValidationException.unsupported("ckf_format.bucket_count",
          "bucket count " + Long.toUnsignedString(bucketCount) + " exceeds 2^24");
    }
    if (bucketCount < MIN_BUCKET_COUNT || Long.bitCount(bucketCount) != 1) {
      throw WireValidationException.malformed("ckf_format.bucket_count",
          "bucket count " + bucketCount + " is not a power of two >= 2");
    }
    return of(seed, bucketCount);
  }

  /**
   * Immutable and thread-safe: the unvalidated wire shape of a {@code CkfFormat} message, with the
   * proto's Java types ({@code uint32} fields as {@code int} bits, {@code uint64}/{@code fixed64} as
   * {@code long}).
   */
  public record Wire(int formatVersion, long seed, long bucketCount, int fingerprintBits, int slotsPerBucket) {}

  /**
   * Validates a wire format; {@code null} (absent) is malformed, otherwise as
   * {@link #validate(long, long, long, long, long)}.
   */
  public static CkfFormat fromWire(@Nullable Wire wire) throws WireValidationException {
    if (wire == null) {
      throw WireValidationException.malformed("ckf_format", "ckf_format is missing");
    }
    return validate(Integer.toUnsignedLong(wire.formatVersion()), wire.seed(), wire.bucketCount(),
        Integer.toUnsignedLong(wire.fingerprintBits()), Integer.toUnsignedLong(wire.slotsPerBucket()));
  }

  /** The wire shape of this format. */
  public Wire toWire() {
    return new Wire(formatVersion, seed, bucketCount, fingerprintBits, slotsPerBucket);
  }

  /** True if {@code b} is a power of two in {@code [2, 2^24]}. */
  public static boolean isValidBucketCount(long b) {
    return b >= MIN_BUCKET_COUNT && b <= MAX_BUCKET_COUNT && Long.bitCount(b) == 1;
  }

  /** {@code bucketCount - 1}, the address mask. */
  public int bucketMask() {
    return bucketCount - 1;
  }

  @Override
  public String toString() {
    return "CkfFormat[v" + formatVersion + ", seed=0x" + Long.toHexString(seed) + ", buckets=" + bucketCount
        + ", fp=" + fingerprintBits + "b, slots=" + slotsPerBucket + "]";
  }
}
