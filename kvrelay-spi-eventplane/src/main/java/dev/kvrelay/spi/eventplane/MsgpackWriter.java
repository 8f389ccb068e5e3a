package dev.kvrelay.spi.eventplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Not thread-safe: confined to one encode call. Writes msgpack the way {@code rmp} does, on msgpack-core's
 * {@link MessageBufferPacker}: every integer in its smallest unsigned form, strings as fixstr / str8 /
 * str16 / str32, maps and arrays in their smallest header, byte strings as bin8 / bin16 / bin32
 * (plugins-wire §2.1; the golden vectors of plugins-wire §2.3 pin the bytes).
 */
final class MsgpackWriter {
  private static final MessagePack.PackerConfig CONFIG = new MessagePack.PackerConfig();

  private final MessageBufferPacker out;

  MsgpackWriter(int initialCapacity) {
    out = CONFIG.withBufferSize(Math.max(16, initialCapacity)).newBufferPacker();
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }

  void nil() {
    try {
      out.packNil();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An unsigned 64-bit integer in its smallest msgpack form. */
  void u64(long v) {
    try {
      if (v >= 0) {
        out.packLong(v); // msgpack-core writes non-negative values in the smallest unsigned form
      } else {
        out.packBigInteger(new BigInteger(1, new byte[] {
            (byte) (v >>> 56), (byte) (v >>> 48), (byte) (v >>> 40), (byte) (v >>> 32),
            (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v})); // 2^63..2^64-1: uint64
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An unsigned 32-bit integer carried in an {@code int}. */
  void u32(int v) {
    u64(Integer.toUnsignedLong(v));
  }

  void mapHeader(int n) {
    try {
      out.packMapHeader(n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void arrayHeader(int n) {
    try {
      out.packArrayHeader(n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void string(String s) {
    try {
      out.packString(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void bin(byte[] b) {
    try {
      out.packBinaryHeader(b.length);
      out.writePayload(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
