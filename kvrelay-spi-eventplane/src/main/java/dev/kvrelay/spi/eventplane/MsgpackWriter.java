package dev.kvrelay.spi.eventplane;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Not thread-safe: confined to one encode call. Writes msgpack the way {@code rmp} does: every integer
 * in its smallest unsigned form, strings as fixstr / str8 / str16 / str32, maps and arrays in their
 * smallest header, byte strings as bin8 / bin16 / bin32.
 */
final class MsgpackWriter {
  private byte[] buf;
  private int size;

  MsgpackWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(size + more, buf.length * 2));
    }
  }

  private void put(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  private void putBigEndian(long v, int bytes) {
    ensure(bytes);
    for (int i = bytes - 1; i >= 0; i--) {
      buf[size++] = (byte) (v >>> (8 * i));
    }
  }

  void nil() {
    put(0xC0);
  }

  /** An unsigned 64-bit integer in its smallest msgpack form. */
  void u64(long v) {
    if (v >= 0 && v <= 0x7F) {
      put((int) v);
    } else if (v >= 0 && v <= 0xFF) {
      put(0xCC);
      putBigEndian(v, 1);
    } else if (v >= 0 && v <= 0xFFFF) {
      put(0xCD);
      putBigEndian(v, 2);
    } else if (v >= 0 && v <= 0xFFFF_FFFFL) {
      put(0xCE);
      putBigEndian(v, 4);
    } else {
      put(0xCF);
      putBigEndian(v, 8);
    }
  }

  /** An unsigned 32-bit integer carried in an {@code int}. */
  void u32(int v) {
    u64(Integer.toUnsignedLong(v));
  }

  void mapHeader(int n) {
    if (n < 16) {
      put(0x80 | n);
    } else if (n <= 0xFFFF) {
      put(0xDE);
      putBigEndian(n, 2);
    } else {
      put(0xDF);
      putBigEndian(n, 4);
    }
  }

  void arrayHeader(int n) {
    if (n < 16) {
      put(0x90 | n);
    } else if (n <= 0xFFFF) {
      put(0xDC);
      putBigEndian(n, 2);
    } else {
      put(0xDD);
      putBigEndian(n, 4);
    }
  }

  void string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    int n = b.length;
    if (n < 32) {
      put(0xA0 | n);
    } else if (n <= 0xFF) {
      put(0xD9);
      putBigEndian(n, 1);
    } else if (n <= 0xFFFF) {
      put(0xDA);
      putBigEndian(n, 2);
    } else {
      put(0xDB);
      putBigEndian(n, 4);
    }
    raw(b, 0, n);
  }

  void bin(byte[] b) {
    int n = b.length;
    if (n <= 0xFF) {
      put(0xC4);
      putBigEndian(n, 1);
    } else if (n <= 0xFFFF) {
      put(0xC5);
      putBigEndian(n, 2);
    } else {
      put(0xC6);
      putBigEndian(n, 4);
    }
    raw(b, 0, n);
  }

  private void raw(byte[] b, int off, int n) {
    ensure(n);
    System.arraycopy(b, off, buf, size, n);
    size += n;
  }
}
