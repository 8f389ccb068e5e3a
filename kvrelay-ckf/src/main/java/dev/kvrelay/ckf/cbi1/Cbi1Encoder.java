package dev.kvrelay.ckf.cbi1;

import static dev.kvrelay.ckf.cbi1.Cbi1.CHUNK_PREFIX_LENGTH;
import static dev.kvrelay.ckf.cbi1.Cbi1.DELTA_IMAGE_LENGTH;
import static dev.kvrelay.ckf.cbi1.Cbi1.DELTA_PREFIX_LENGTH;
import static dev.kvrelay.ckf.cbi1.Cbi1.HEADER_LENGTH;
import static dev.kvrelay.ckf.cbi1.Cbi1.SNAPSHOT_CHUNK_BUCKETS;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1EncodeException.Reason;
import dev.kvrelay.ckf.hashing.Xxh3;
import java.util.ArrayList;
import java.util.List;

/**
 * Stateless and thread-safe (output buffers are the caller's to confine): encodes CBI1 delta and
 * snapshot-chunk frames ({@code ckf-cbi1.md} §6.2–§6.5).
 *
 * <p>Every frame is little-endian: the 48-byte header is written with zeros at 44..48, the body after
 * it, then the checksum {@code (u32) XXH3_64(bytes[48..])} (unseeded) is patched in. Words are written
 * with a little-endian view VarHandle; nothing is allocated per word. The {@code …Into} variants write
 * into a caller-provided array and allocate nothing; inputs are fully validated before the first byte is
 * written.
 */
public final class Cbi1Encoder {

  private Cbi1Encoder() {}

  /**
   * Encodes a delta of {@code count} absolute bucket images.
   *
   * @param format the filter format; its seed and bucket count go into the header
   * @param dcId producer {@code pool_id.dc_id}
   * @param baseSequence the sequence the delta applies on top of (body {@code base_epoch})
   * @param sequence the delta's own sequence (header {@code epoch})
   * @param buckets image bucket indexes; the first {@code count} are used, each must be {@code < B}
   * @param words image words; the first {@code count} are used
   * @param count image count in {@code [0, 349 525]}
   * @return a new frame of {@code 60 + 12 · count} bytes
   * @throws Cbi1EncodeException {@code DELTA_IMAGE_COUNT}, {@code IMAGE_ARRAY_LENGTH},
   *     {@code BUCKET_INDEX}
   */
  public static byte[] encodeDelta(
      CkfFormat format, long dcId, long baseSequence, long sequence, int[] buckets, long[] words, int count)
      throws Cbi1EncodeException {
    validateDelta(format, buckets, words, count);
    byte[] out = new byte[Cbi1.deltaFrameLength(count)];
    writeDelta(format, dcId, baseSequence, sequence, buckets, words, count, out, 0);
    return out;
  }

  /**
   * Encodes a delta into {@code dst} at {@code dstOffset}; see
   * {@link #encodeDelta(CkfFormat, long, long, long, int[], long[], int)}.
   *
   * @return the frame length written, {@code 60 + 12 · count}
   * @throws Cbi1EncodeException as {@code encodeDelta}, or {@code OUTPUT_CAPACITY} if the frame does not
   *     fit; {@code dst} is untouched on failure
   */
  public static int encodeDeltaInto(
      CkfFormat format,
      long dcId,
      long baseSequence,
      long sequence,
      int[] buckets,
      long[] words,
      int count,
      byte[] dst,
      int dstOffset)
      throws Cbi1EncodeException {
    validateDelta(format, buckets, words, count);
    int len = Cbi1.deltaFrameLength(count);
    checkCapacity(dst, dstOffset, len);
    writeDelta(format, dcId, baseSequence, sequence, buckets, words, count, dst, dstOffset);
    return len;
  }

  /**
   * Encodes chunk {@code chunkIndex} of the snapshot {@code words} (all B words) at {@code sequence}.
   *
   * @return a new frame of {@code 64 + 8 · n} bytes, {@code n = min(524 288, B − 524 288 · chunkIndex)}
   * @throws Cbi1EncodeException {@code SNAPSHOT_BUCKET_COUNT} if {@code words.length ≠ B},
   *     {@code CHUNK_INDEX} if {@code chunkIndex} is outside {@code [0, ceil(B / 524 288))}
   */
  public static byte[] encodeSnapshotChunk(
      CkfFormat format, long dcId, long sequence, long[] words, int chunkIndex) throws Cbi1EncodeException {
    int n = validateChunk(format, words, chunkIndex);
    byte[] out = new byte[Cbi1.chunkFrameLength(n)];
    writeChunk(format, dcId, sequence, words, chunkIndex, n, out, 0);
    return out;
  }

  /**
   * Encodes one snapshot chunk into {@code dst} at {@code dstOffset}; see
   * {@link #encodeSnapshotChunk(CkfFormat, long, long, long[], int)}. A buffer of
   * {@link Cbi1#MAX_FRAME_BYTES} holds any chunk.
   *
   * @return the frame length written
   * @throws Cbi1EncodeException as {@code encodeSnapshotChunk}, or {@code OUTPUT_CAPACITY};
   *     {@code dst} is untouched on failure
   */
  public static int encodeSnapshotChunkInto(
      CkfFormat format, long dcId, long sequence, long[] words, int chunkIndex, byte[] dst, int dstOffset)
      throws Cbi1EncodeException {
    int n = validateChunk(format, words, chunkIndex);
    int len = Cbi1.chunkFrameLength(n);
    checkCapacity(dst, dstOffset, len);
    writeChunk(format, dcId, sequence, words, chunkIndex, n, dst, dstOffset);
    return len;
  }

  /**
   * Encodes a whole snapshot as {@code ceil(B / 524 288)} chunk frames, in chunk order.
   *
   * @param words all B bucket words
   * @throws Cbi1EncodeException {@code SNAPSHOT_BUCKET_COUNT} if {@code words.length ≠ B}
   */
  public static List<byte[]> encodeSnapshot(CkfFormat format, long dcId, long sequence, long[] words)
      throws Cbi1EncodeException {
    validateSnapshotWords(format, words);
    int chunks = Cbi1.chunkCount(format.bucketCount());
    List<byte[]> frames = new ArrayList<>(chunks);
    for (int i = 0; i < chunks; i++) {
      frames.add(encodeSnapshotChunk(format, dcId, sequence, words, i));
    }
    return frames;
  }

  /**
   * The format-identity rules of §6.5. {@link CkfFormat} already enforces them on construction, so this
   * re-check only guards against a future relaxation of that record.
   */
  static void checkFormat(int formatVersion, int fingerprintBits, int slotsPerBucket, long bucketCount)
      throws Cbi1EncodeException {
    if (formatVersion != CkfFormat.FORMAT_VERSION
        || fingerprintBits != CkfFormat.FINGERPRINT_BITS
        || slotsPerBucket != CkfFormat.SLOTS_PER_BUCKET) {
      throw new Cbi1EncodeException(Reason.UNSUPPORTED_FORMAT_IDENTITY,
          "format_version " + formatVersion + ", fingerprint_bits " + fingerprintBits
              + ", slots_per_bucket " + slotsPerBucket + " (expected 1, 16, 4)");
    }
    if (!CkfFormat.isValidBucketCount(bucketCount)) {
      throw new Cbi1EncodeException(Reason.BUCKET_COUNT,
          "bucket count " + Long.toUnsignedString(bucketCount) + " is not a power of two in [2, 2^24]");
    }
  }

  private static void checkFormat(CkfFormat f) throws Cbi1EncodeException {
    checkFormat(f.formatVersion(), f.fingerprintBits(), f.slotsPerBucket(), f.bucketCount());
  }

  private static void validateDelta(CkfFormat format, int[] buckets, long[] words, int count)
      throws Cbi1EncodeException {
    checkFormat(format);
    if (count > Cbi1.MAX_DELTA_IMAGES) {
      throw new Cbi1EncodeException(Reason.DELTA_IMAGE_COUNT,
          count + " images exceed the maximum " + Cbi1.MAX_DELTA_IMAGES);
    }
    if (count < 0 || count > buckets.length || count > words.length) {
      throw new Cbi1EncodeException(Reason.IMAGE_ARRAY_LENGTH,
          "count " + count + " with " + buckets.length + " buckets and " + words.length + " words");
    }
    int outside = ~format.bucketMask(); // B is a power of two: b < B (as u32) iff no bit outside the mask
    for (int i = 0; i < count; i++) {
      if ((buckets[i] & outside) != 0) {
        throw new Cbi1EncodeException(Reason.BUCKET_INDEX,
            "image " + i + " bucket " + Integer.toUnsignedString(buckets[i]) + " >= bucket count "
                + format.bucketCount());
      }
    }
  }

  private static void validateSnapshotWords(CkfFormat format, long[] words) throws Cbi1EncodeException {
    checkFormat(format);
    if (words.length != format.bucketCount()) {
      throw new Cbi1EncodeException(Reason.SNAPSHOT_BUCKET_COUNT,
          words.length + " words for bucket count " + format.bucketCount());
    }
  }

  /** Validates and returns the chunk's word count. */
  private static int validateChunk(CkfFormat format, long[] words, int chunkIndex) throws Cbi1EncodeException {
    validateSnapshotWords(format, words);
    int chunks = Cbi1.chunkCount(format.bucketCount());
    if (chunkIndex < 0 || chunkIndex >= chunks) {
      throw new Cbi1EncodeException(Reason.CHUNK_INDEX, "chunk " + chunkIndex + " of " + chunks);
    }
    return Cbi1.chunkWordCount(format.bucketCount(), chunkIndex);
  }

  private static void checkCapacity(byte[] dst, int off, int len) throws Cbi1EncodeException {
    if (off < 0 || off > dst.length || dst.length - off < len) {
      throw new Cbi1EncodeException(Reason.OUTPUT_CAPACITY,
          len + " bytes at offset " + off + " do not fit an array of " + dst.length);
    }
  }

  private static void writeDelta(
      CkfFormat format,
      long dcId,
      long baseSequence,
      long sequence,
      int[] buckets,
      long[] words,
      int count,
      byte[] dst,
      int off) {
    writeHeader(format, Cbi1.FLAG_DELTA, dcId, sequence, dst, off);
    int p = off + HEADER_LENGTH;
    LittleEndian.putLong(dst, p, baseSequence);
    LittleEndian.putInt(dst, p + 8, count);
    p += DELTA_PREFIX_LENGTH;
    for (int i = 0; i < count; i++, p += DELTA_IMAGE_LENGTH) {
      LittleEndian.putInt(dst, p, buckets[i]);
      LittleEndian.putLong(dst, p + 4, words[i]);
    }
    sealChecksum(dst, off, p - off);
  }

  private static void writeChunk(
      CkfFormat format, long dcId, long sequence, long[] words, int chunkIndex, int n, byte[] dst, int off) {
    writeHeader(format, Cbi1.FLAG_SNAPSHOT_CHUNK, dcId, sequence, dst, off);
    int p = off + HEADER_LENGTH;
    int bucketOffset = chunkIndex * SNAPSHOT_CHUNK_BUCKETS;
    LittleEndian.putInt(dst, p, chunkIndex);
    LittleEndian.putInt(dst, p + 4, Cbi1.chunkCount(format.bucketCount()));
    LittleEndian.putLong(dst, p + 8, bucketOffset);
    p += CHUNK_PREFIX_LENGTH;
    LittleEndian.putLongs(dst, p, words, bucketOffset, n);
    sealChecksum(dst, off, Cbi1.chunkFrameLength(n));
  }

  private static void writeHeader(CkfFormat format, int flags, long dcId, long epoch, byte[] dst, int off) {
    LittleEndian.putInt(dst, off + Cbi1.OFF_MAGIC, Cbi1.MAGIC);
    LittleEndian.putShort(dst, off + Cbi1.OFF_WIRE_VERSION, Cbi1.WIRE_VERSION);
    LittleEndian.putShort(dst, off + Cbi1.OFF_FLAGS, flags);
    dst[off + Cbi1.OFF_FINGERPRINT_BITS] = (byte) format.fingerprintBits();
    dst[off + Cbi1.OFF_SLOTS_PER_BUCKET] = (byte) format.slotsPerBucket();
    LittleEndian.putShort(dst, off + Cbi1.OFF_FORMAT_VERSION, format.formatVersion());
    LittleEndian.putLong(dst, off + Cbi1.OFF_SEED, format.seed());
    LittleEndian.putLong(dst, off + Cbi1.OFF_BUCKET_COUNT, format.bucketCount());
    LittleEndian.putLong(dst, off + Cbi1.OFF_DC_ID, dcId);
    LittleEndian.putLong(dst, off + Cbi1.OFF_EPOCH, epoch);
    LittleEndian.putInt(dst, off + Cbi1.OFF_CHECKSUM, 0);
  }

  private static void sealChecksum(byte[] dst, int off, int frameLength) {
    LittleEndian.putInt(dst, off + Cbi1.OFF_CHECKSUM, bodyChecksum(dst, off, frameLength));
  }

  /** {@code (u32) XXH3_64(frame[48..])}, unseeded. */
  static int bodyChecksum(byte[] frame, int off, int frameLength) {
    return (int) Xxh3.unseeded(frame, off + HEADER_LENGTH, frameLength - HEADER_LENGTH);
  }
}
