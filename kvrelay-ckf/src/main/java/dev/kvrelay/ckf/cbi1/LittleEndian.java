package dev.kvrelay.ckf.cbi1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Stateless and thread-safe: little-endian reads and writes on byte arrays through view VarHandles. */
final class LittleEndian {
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  private LittleEndian() {}

  static long getLong(byte[] b, int off) {
    return (long) LONG.get(b, off);
  }

  static void putLong(byte[] b, int off, long v) {
    LONG.set(b, off, v);
  }

  /** The u32 at {@code off}, zero-extended. */
  static long getU32(byte[] b, int off) {
    return Integer.toUnsignedLong((int) INT.get(b, off));
  }

  static int getInt(byte[] b, int off) {
    return (int) INT.get(b, off);
  }

  static void putInt(byte[] b, int off, int v) {
    INT.set(b, off, v);
  }

  /** The u16 at {@code off}, zero-extended. */
  static int getU16(byte[] b, int off) {
    return Short.toUnsignedInt((short) SHORT.get(b, off));
  }

  static void putShort(byte[] b, int off, int v) {
    SHORT.set(b, off, (short) v);
  }

  /** Writes {@code words[from, from+n)} as consecutive u64 values starting at {@code off}. */
  static void putLongs(byte[] b, int off, long[] words, int from, int n) {
    for (int i = 0; i < n; i++) {
      LONG.set(b, off + (i << 3), words[from + i]);
    }
  }

  /** Reads {@code n} consecutive u64 values starting at {@code off} into {@code words[to, to+n)}. */
  static void getLongs(byte[] b, int off, long[] words, int to, int n) {
    for (int i = 0; i < n; i++) {
      words[to + i] = (long) LONG.get(b, off + (i << 3));
    }
  }
}
