package dev.kvrelay.ckf.cbi1;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An independent, deliberately naive CBI1 writer for tests: ByteBuffer puts straight from the spec's
 * §6.2–§6.4 tables and hash4j's XXH3 called directly (not through the code under test).
 */
final class Cbi1Reference {
  static final Hasher64 XXH3_UNSEEDED = Hashing.xxh3_64();

  private Cbi1Reference() {}

  static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  /** Low 32 bits of unseeded XXH3-64 over {@code frame[48..]}. */
  static int bodyChecksum(byte[] frame) {
    return (int) XXH3_UNSEEDED.hashBytesToLong(frame, 48, frame.length - 48);
  }

  /** The checksum stored at 44..48. */
  static int storedChecksum(byte[] frame) {
    return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getInt(44);
  }

  /** A copy of {@code frame} with the stored checksum recomputed over its (possibly edited) body. */
  static byte[] resealed(byte[] frame) {
    byte[] copy = frame.clone();
    ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(44, bodyChecksum(copy));
    return copy;
  }

  static ByteBuffer le(byte[] frame) {
    return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** A copy of {@code frame} with {@code bytes} written at {@code offset} (checksum untouched). */
  static byte[] patched(byte[] frame, int offset, byte... bytes) {
    byte[] copy = frame.clone();
    System.arraycopy(bytes, 0, copy, offset, bytes.length);
    return copy;
  }

  static byte[] header(int flags, int fpBits, int slots, int formatVersion, long seed, long bucketCount,
      long dcId, long epoch, int bodyLength) {
    ByteBuffer b = ByteBuffer.allocate(48 + bodyLength).order(ByteOrder.LITTLE_ENDIAN);
    b.put(new byte[] {'C', 'B', 'I', '1'});
    b.putShort((short) 1);
    b.putShort((short) flags);
    b.put((byte) fpBits);
    b.put((byte) slots);
    b.putShort((short) formatVersion);
    b.putLong(seed);
    b.putLong(bucketCount);
    b.putLong(dcId);
    b.putLong(epoch);
    b.putInt(0);
    return b.array();
  }

  /** A sealed delta frame with {@code count} as given (it may disagree with the arrays). */
  static byte[] delta(long seed, long bucketCount, long dcId, long base, long epoch, long count,
      int[] buckets, long[] words) {
    byte[] f = header(2, 16, 4, 1, seed, bucketCount, dcId, epoch, 12 + 12 * buckets.length);
    ByteBuffer b = le(f).position(48);
    b.putLong(base);
    b.putInt((int) count);
    for (int i = 0; i < buckets.length; i++) {
      b.putInt(buckets[i]);
      b.putLong(words[i]);
    }
    return resealed(f);
  }

  static byte[] delta(long seed, long bucketCount, long dcId, long base, long epoch, int[] buckets,
      long[] words) {
    return delta(seed, bucketCount, dcId, base, epoch, buckets.length, buckets, words);
  }

  /** A sealed chunk frame carrying {@code words} verbatim. */
  static byte[] chunk(long seed, long bucketCount, long dcId, long epoch, long index, long count,
      long offset, long[] words) {
    byte[] f = header(1, 16, 4, 1, seed, bucketCount, dcId, epoch, 16 + 8 * words.length);
    ByteBuffer b = le(f).position(48);
    b.putInt((int) index);
    b.putInt((int) count);
    b.putLong(offset);
    for (long w : words) {
      b.putLong(w);
    }
    return resealed(f);
  }

  /** The chunk frames of a whole snapshot, by the spec's chunking rule. */
  static byte[][] snapshot(long seed, int bucketCount, long dcId, long epoch, long[] words) {
    int chunk = 524_288;
    int count = (bucketCount + chunk - 1) / chunk;
    byte[][] frames = new byte[count][];
    for (int i = 0; i < count; i++) {
      int from = i * chunk;
      int to = Math.min(bucketCount, from + chunk);
      frames[i] = chunk(seed, bucketCount, dcId, epoch, i, count, from, Arrays.copyOfRange(words, from, to));
    }
    return frames;
  }
}
