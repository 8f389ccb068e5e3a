package dev.kvrelay.ckf.cbi1;

import static dev.kvrelay.ckf.cbi1.Cbi1.CHUNK_PREFIX_LENGTH;
import static dev.kvrelay.ckf.cbi1.Cbi1.DELTA_IMAGE_LENGTH;
import static dev.kvrelay.ckf.cbi1.Cbi1.DELTA_PREFIX_LENGTH;
import static dev.kvrelay.ckf.cbi1.Cbi1.HEADER_LENGTH;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException.Reason;
import java.util.Objects;

/**
 * Stateless and thread-safe: decodes and validates CBI1 frames against the expected {@link CkfFormat}
 * ({@code ckf-cbi1.md} §6.6).
 *
 * <p>Checks run in the spec's order: length ≥ 48, length ≤ {@link Cbi1#MAX_FRAME_BYTES}, magic, wire
 * version, body checksum (before any format or flags check), format version, fingerprint bits, slots per
 * bucket, seed, bucket count, flags, then the body. Any byte sequence either decodes or raises
 * {@link Cbi1DecodeException}; allocation happens only after the sizes were validated, and is bounded by
 * the frame length.
 *
 * <p>The decoder is lenient where CBI1 is: empty deltas and repeated bucket indexes decode (the consumer
 * core rejects them), and a chunk's {@code bucket_offset} is not checked against its index
 * ({@link SnapshotAssembly} checks contiguity). dc_id and epoch are not covered by the checksum; the
 * consumer checks them against the stream envelope.
 */
public final class Cbi1Decoder {

  private Cbi1Decoder() {}

  /**
   * Decodes a whole array as one frame.
   *
   * @param expected the subscribed format; seed and bucket count must match the header
   * @throws Cbi1DecodeException with the first failing check's reason
   */
  public static Cbi1Frame decode(CkfFormat expected, byte[] frame) throws Cbi1DecodeException {
    return decode(expected, frame, 0, frame.length);
  }

  /**
   * Decodes {@code frame[off, off+len)} as one frame; see {@link #decode(CkfFormat, byte[])}.
   *
   * @throws IndexOutOfBoundsException only if {@code off}/{@code len} do not describe a range of
   *     {@code frame} (a caller bug, not a property of the bytes)
   */
  public static Cbi1Frame decode(CkfFormat expected, byte[] frame, int off, int len)
      throws Cbi1DecodeException {
    Objects.checkFromIndexSize(off, len, frame.length);
    Cbi1Header header = decodeHeader(expected, frame, off, len);
    int flags = LittleEndian.getU16(frame, off + Cbi1.OFF_FLAGS);
    int body = off + HEADER_LENGTH;
    int bodyLen = len - HEADER_LENGTH;
    return switch (flags) {
      case Cbi1.FLAG_SNAPSHOT_CHUNK -> decodeChunkBody(header, frame, body, bodyLen);
      case Cbi1.FLAG_DELTA -> decodeDeltaBody(header, frame, body, bodyLen);
      default -> throw new Cbi1DecodeException(Reason.FLAGS, "flags 0x" + Integer.toHexString(flags));
    };
  }

  /** Checks 1–6 of §6.6 (everything before flags) and returns the header fields. */
  private static Cbi1Header decodeHeader(CkfFormat expected, byte[] frame, int off, int len)
      throws Cbi1DecodeException {
    if (len < HEADER_LENGTH) {
      throw new Cbi1DecodeException(Reason.TRUNCATED, len + " bytes, header needs " + HEADER_LENGTH);
    }
    if (len > Cbi1.MAX_FRAME_BYTES) {
      throw new Cbi1DecodeException(Reason.FRAME_TOO_LARGE,
          len + " bytes exceed the maximum " + Cbi1.MAX_FRAME_BYTES);
    }
    int magic = LittleEndian.getInt(frame, off + Cbi1.OFF_MAGIC);
    if (magic != Cbi1.MAGIC) {
      throw new Cbi1DecodeException(Reason.MAGIC, "magic 0x" + Integer.toHexString(Integer.reverseBytes(magic)));
    }
    int wireVersion = LittleEndian.getU16(frame, off + Cbi1.OFF_WIRE_VERSION);
    if (wireVersion != Cbi1.WIRE_VERSION) {
      throw new Cbi1DecodeException(Reason.WIRE_VERSION, "wire_version " + wireVersion);
    }
    int stored = LittleEndian.getInt(frame, off + Cbi1.OFF_CHECKSUM);
    int computed = Cbi1Encoder.bodyChecksum(frame, off, len);
    if (stored != computed) {
      throw new Cbi1DecodeException(Reason.CHECKSUM,
          "stored 0x" + Integer.toHexString(stored) + ", computed 0x" + Integer.toHexString(computed));
    }
    int formatVersion = LittleEndian.getU16(frame, off + Cbi1.OFF_FORMAT_VERSION);
    if (formatVersion != CkfFormat.FORMAT_VERSION) {
      throw new Cbi1DecodeException(Reason.FORMAT_VERSION, "format_version " + formatVersion);
    }
    int fingerprintBits = Byte.toUnsignedInt(frame[off + Cbi1.OFF_FINGERPRINT_BITS]);
    if (fingerprintBits != expected.fingerprintBits()) {
      throw new Cbi1DecodeException(Reason.FORMAT_MISMATCH_FINGERPRINT_BITS,
          "fingerprint_bits " + fingerprintBits + ", expected " + expected.fingerprintBits());
    }
    int slots = Byte.toUnsignedInt(frame[off + Cbi1.OFF_SLOTS_PER_BUCKET]);
    if (slots != expected.slotsPerBucket()) {
      throw new Cbi1DecodeException(Reason.FORMAT_MISMATCH_SLOTS_PER_BUCKET,
          "slots_per_bucket " + slots + ", expected " + expected.slotsPerBucket());
    }
    long seed = LittleEndian.getLong(frame, off + Cbi1.OFF_SEED);
    if (seed != expected.seed()) {
      throw new Cbi1DecodeException(Reason.FORMAT_MISMATCH_SEED,
          "seed 0x" + Long.toHexString(seed) + ", expected 0x" + Long.toHexString(expected.seed()));
    }
    long bucketCount = LittleEndian.getLong(frame, off + Cbi1.OFF_BUCKET_COUNT);
    if (bucketCount != expected.bucketCount()) {
      throw new Cbi1DecodeException(Reason.FORMAT_MISMATCH_BUCKET_COUNT,
          "bucket_count " + Long.toUnsignedString(bucketCount) + ", expected " + expected.bucketCount());
    }
    return new Cbi1Header(
        seed,
        expected.bucketCount(),
        LittleEndian.getLong(frame, off + Cbi1.OFF_DC_ID),
        LittleEndian.getLong(frame, off + Cbi1.OFF_EPOCH));
  }

  /** Check 8: the delta body {@code frame[body, body+bodyLen)}. */
  static Cbi1Frame.Delta decodeDeltaBody(Cbi1Header header, byte[] frame, int body, int bodyLen)
      throws Cbi1DecodeException {
    if (bodyLen < DELTA_PREFIX_LENGTH) {
      throw new Cbi1DecodeException(Reason.MALFORMED,
          "delta body of " + bodyLen + " bytes is shorter than its " + DELTA_PREFIX_LENGTH + "-byte prefix");
    }
    long baseEpoch = LittleEndian.getLong(frame, body);
    long count = LittleEndian.getU32(frame, body + 8);
    if (count > Cbi1.MAX_DELTA_IMAGES) {
      throw new Cbi1DecodeException(Reason.DELTA_IMAGE_COUNT,
          count + " images exceed the maximum " + Cbi1.MAX_DELTA_IMAGES);
    }
    int n = (int) count;
    if (bodyLen != DELTA_PREFIX_LENGTH + DELTA_IMAGE_LENGTH * n) {
      throw new Cbi1DecodeException(Reason.MALFORMED,
          "delta body of " + bodyLen + " bytes does not hold exactly " + n + " images");
    }
    int[] buckets = new int[n];
    long[] words = new long[n];
    long bucketCount = header.bucketCount();
    int p = body + DELTA_PREFIX_LENGTH;
    for (int i = 0; i < n; i++, p += DELTA_IMAGE_LENGTH) {
      long bucket = LittleEndian.getU32(frame, p);
      if (bucket >= bucketCount) {
        throw new Cbi1DecodeException(Reason.MALFORMED,
            "image " + i + " bucket " + bucket + " >= bucket count " + bucketCount);
      }
      buckets[i] = (int) bucket;
      words[i] = LittleEndian.getLong(frame, p + 4);
    }
    return new Cbi1Frame.Delta(header, baseEpoch, buckets, words);
  }

  /** Check 9: the snapshot chunk body {@code frame[body, body+bodyLen)}. */
  static Cbi1Frame.SnapshotChunk decodeChunkBody(Cbi1Header header, byte[] frame, int body, int bodyLen)
      throws Cbi1DecodeException {
    if (bodyLen < CHUNK_PREFIX_LENGTH) {
      throw new Cbi1DecodeException(Reason.MALFORMED,
          "chunk body of " + bodyLen + " bytes is shorter than its " + CHUNK_PREFIX_LENGTH + "-byte prefix");
    }
    long chunkIndex = LittleEndian.getU32(frame, body);
    long chunkCount = LittleEndian.getU32(frame, body + 4);
    if (chunkCount == 0 || chunkIndex >= chunkCount) {
      throw new Cbi1DecodeException(Reason.MALFORMED, "chunk index " + chunkIndex + " of " + chunkCount);
    }
    int wordBytes = bodyLen - CHUNK_PREFIX_LENGTH;
    if (wordBytes % Long.BYTES != 0) {
      throw new Cbi1DecodeException(Reason.MALFORMED,
          "chunk words span " + wordBytes + " bytes, not a multiple of 8");
    }
    int n = wordBytes / Long.BYTES;
    if (n > Cbi1.SNAPSHOT_CHUNK_BUCKETS) {
      throw new Cbi1DecodeException(Reason.SNAPSHOT_CHUNK_WORD_COUNT,
          n + " words exceed the maximum " + Cbi1.SNAPSHOT_CHUNK_BUCKETS);
    }
    long bucketOffset = LittleEndian.getLong(frame, body + 8);
    long bucketCount = header.bucketCount();
    // checked add: bucket_offset + n <= bucket_count, all unsigned; n <= bucket_count first
    if (n > bucketCount || Long.compareUnsigned(bucketOffset, bucketCount - n) > 0) {
      throw new Cbi1DecodeException(Reason.MALFORMED,
          "chunk words [" + Long.toUnsignedString(bucketOffset) + ", +" + n + ") exceed bucket count "
              + bucketCount);
    }
    long[] words = new long[n];
    LittleEndian.getLongs(frame, body + CHUNK_PREFIX_LENGTH, words, 0, n);
    return new Cbi1Frame.SnapshotChunk(header, chunkIndex, chunkCount, bucketOffset, words);
  }
}
